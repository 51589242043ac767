// Steady traffic through a deployment's front door while it is upgraded: inquiries with and without a
// Bearer token (some sent twice with one Idempotency-Key, as a client retries), token grants and
// refreshes, and contact_service calls, each request's status and time recorded.
import { createHash, randomBytes } from 'node:crypto';
import { approveConsent } from '../support/consent.js';

export interface Outcome {
  kind: string;
  /** 0 when no answer came (the connection failed). */
  status: number;
  ms: number;
  detail?: string;
}

export interface Client {
  client_id: string;
  client_secret: string;
}

const basic = (client: Client) => `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
const REDIRECT_URI = 'https://crm.example/callback';

/** A confidential client that may use every grant, registered at `base`. */
export async function registerClient(base: string): Promise<Client> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Upgrade CRM', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'], scope: 'contact:write mcp:invoke' }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Client;
}

export async function tokenRequest(base: string, client: Client, form: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { authorization: basic(client) }, body: new URLSearchParams(form) });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** Access and refresh tokens from an authorization code approved at `base` (the address the visitor's browser uses), exchanged at `exchangeAt`. */
export async function codeTokens(base: string, client: Client, exchangeAt = base): Promise<Record<string, string>> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${base}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'upgrade',
    scope: 'contact:write',
  }).toString();
  const callback = await approveConsent(authorize);
  const exchange = { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier };
  const tokens = await tokenRequest(exchangeAt, client, exchange);
  if (tokens.status !== 200) throw new Error(`the code exchange answered ${tokens.status}`);
  return tokens.body;
}

export const inquiryBody = (marker: string) => JSON.stringify({ name: 'Upgrade Visitor', email: 'visitor@example.com', message: `Sent during the upgrade: ${marker}`, privacy: true });

export interface TrafficReport {
  outcomes: Outcome[];
  /** The markers of the inquiries answered 200: each must be stored and delivered once. */
  acknowledged: string[];
}

/**
 * Sends `perSecond` requests a second to `base` until stop(), rotating through the kinds; a refresh chain
 * goes on from the refresh token each refresh returns.
 */
export function steadyTraffic(base: string, client: Client, refreshToken: string, perSecond = 20): { stop(): Promise<TrafficReport> } {
  const outcomes: Outcome[] = [];
  const acknowledged: string[] = [];
  const running = new Set<Promise<void>>();
  let refresh = refreshToken;
  let refreshing = false;
  let bearer: string | undefined;
  let n = 0;

  // Each request on a connection of its own (RFC 9112 §9.6): when nginx reloads, its old worker closes
  // the connections it holds idle, and a request sent on one at that moment is lost before any node
  // sees it. That race is the front door's, whatever the nodes behind it do; this traffic measures them.
  const send = (url: string, init: RequestInit & { headers: Record<string, string> }) => fetch(url, { ...init, headers: { ...init.headers, connection: 'close' } });
  const timed = async (kind: string, request: () => Promise<Response>): Promise<Response | undefined> => {
    const started = performance.now();
    try {
      const response = await request();
      const text = await response.text();
      const outcome: Outcome = { kind, status: response.status, ms: performance.now() - started };
      if (response.status >= 400) outcome.detail = text.slice(0, 300);
      outcomes.push(outcome);
      return new Response(text, { status: response.status, headers: response.headers });
    } catch (error) {
      outcomes.push({ kind, status: 0, ms: performance.now() - started, detail: String((error as Error).cause ?? error) });
      return undefined;
    }
  };
  const inquiry = async (kind: string, headers: Record<string, string>, times = 1) => {
    const marker = `${kind}-${n}-${randomBytes(4).toString('hex')}`;
    const key = randomBytes(12).toString('base64url');
    let ok = false;
    for (let i = 0; i < times; i++) {
      const response = await timed(kind, () =>
        send(`${base}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key, ...headers }, body: inquiryBody(marker) }),
      );
      ok ||= response?.status === 200;
    }
    if (ok) acknowledged.push(marker);
  };
  const kinds: (() => Promise<void>)[] = [
    () => inquiry('anonymous', {}),
    () => inquiry('retried', {}, 2),
    async () => {
      const granted = await timed('client_credentials', () =>
        send(`${base}/oauth/token`, { method: 'POST', headers: { authorization: basic(client) }, body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }) }),
      );
      if (granted?.status === 200) bearer = ((await granted.json()) as { access_token: string }).access_token;
    },
    () => (bearer ? inquiry('bearer', { authorization: `Bearer ${bearer}` }) : Promise.resolve()),
    async () => {
      if (refreshing) return;
      refreshing = true;
      const rotated = await timed('refresh_token', () =>
        send(`${base}/oauth/token`, { method: 'POST', headers: { authorization: basic(client) }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh }) }),
      );
      if (rotated?.status === 200) refresh = ((await rotated.json()) as { refresh_token: string }).refresh_token;
      refreshing = false;
    },
    async () => {
      const marker = `mcp-${n}-${randomBytes(4).toString('hex')}`;
      const call = {
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: { name: 'contact_service', arguments: { name: 'Upgrade Bot', email: 'bot@example.com', message: `Sent during the upgrade: ${marker}`, privacy: true } },
      };
      const answer = await timed('tools/call', () =>
        send(`${base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify(call),
        }),
      );
      const result = answer?.status === 200 ? ((await answer.json()) as { result?: { isError?: boolean } }).result : undefined;
      if (result && !result.isError) acknowledged.push(marker);
      else if (result) outcomes.push({ kind: 'tools/call', status: 500, ms: 0, detail: JSON.stringify(result).slice(0, 300) });
    },
  ];
  const timer = setInterval(() => {
    const work = kinds[n++ % kinds.length]!();
    running.add(work);
    void work.finally(() => running.delete(work));
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...running]);
      return { outcomes, acknowledged };
    },
  };
}
