// A webhook endpoint on loopback that checks every delivery with the Standard Webhooks reference library
// (npm standardwebhooks), as a receiver in the field would, and answers as told: 204, 500, a redirect,
// a huge body, or nothing at all.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type ReceiverMode = 'ok' | 'fail' | 'redirect' | 'huge' | 'hang';

export interface ReceivedEvent {
  id: string;
  timestamp: number;
  /** The verified payload. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

export interface WebhookReceiver {
  url: string;
  mode: ReceiverMode;
  /** Deliveries that verified and were answered 2xx. */
  events: ReceivedEvent[];
  /** Every request, verified or not, with the answer it got. */
  requests: { id: string | undefined; verified: boolean; answered: number | 'none' }[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string, mode: ReceiverMode = 'ok', port = 0): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const hanging = new Set<ServerResponse>();
  const state: WebhookReceiver = { url: '', mode, events: [], requests: [], close: async () => {} };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const id = header(req.headers, 'webhook-id');
      let payload: ReceivedEvent['payload'] | undefined;
      try {
        payload = verifier.verify(body, req.headers as Record<string, string>) as ReceivedEvent['payload'];
      } catch {
        payload = undefined;
      }
      const record = { id, verified: payload !== undefined, answered: 'none' as number | 'none' };
      state.requests.push(record);
      const answer = (status: number, headers: Record<string, string> = {}, text = '') => {
        record.answered = status;
        res.writeHead(status, headers).end(text);
      };
      if (!payload) return answer(400, {}, 'signature did not verify');
      switch (state.mode) {
        case 'hang':
          hanging.add(res);
          return;
        case 'fail':
          return answer(500, {}, 'receiver broke');
        case 'redirect':
          return answer(302, { location: `${state.url}/moved` });
        case 'huge':
          state.events.push({ id: id!, timestamp: Number(header(req.headers, 'webhook-timestamp')), payload });
          return answer(200, { 'content-type': 'text/plain' }, 'x'.repeat(4 * 1024 * 1024));
        default:
          state.events.push({ id: id!, timestamp: Number(header(req.headers, 'webhook-timestamp')), payload });
          return answer(204);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/portico`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};
