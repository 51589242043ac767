// Bytes over a raw TCP socket, for requests no HTTP client will send: odd header names, lying lengths, bare line feeds.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface RawOutcome {
  /** Every response read before the connection closed or the wait ran out, in order. */
  responses: RawResponse[];
  /** The server closed the connection (a refusal without an answer counts as closed). */
  closed: boolean;
}

/**
 * Writes `bytes`, half-closes when `halfClose` (so a server waiting for a promised body sees the end),
 * and collects what comes back for at most `waitMs`.
 */
export function rawExchange(base: string, bytes: string | Buffer, { halfClose = true, waitMs = 3000 } = {}): Promise<RawOutcome> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks)), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, () => {
      if (halfClose) socket.end();
    });
  });
}

/** HTTP/1.1 responses framed by Content-Length (what this server sends), one after another. */
export function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < data.length) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const [statusLine = '', ...lines] = data.subarray(offset, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
    if (!status) break;
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get('content-length') ?? 0);
    const bodyStart = end + 4;
    responses.push({ status: Number(status), headers, text: data.subarray(bodyStart, bodyStart + length).toString('utf8') });
    offset = bodyStart + length;
  }
  return responses;
}
