// Slowloris (docs/security.md): a client that trickles its headers or its body is answered 408 in the
// error body and disconnected soon after the deadline, instead of holding a connection for ever.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { HTTP_TIMEOUTS } from '../../src/app.js';

interface Trickle {
  text: string;
  closedAfterMs: number;
}

/** Sends `head` at once from `from`, then `drip` every 100 ms, until the server closes the connection. */
function trickle(base: string, head: string, drip: string, giveUpMs = 8_000, from = '127.0.0.1'): Promise<Trickle> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ port: Number(port), host: hostname, localAddress: from }, () => socket.write(head));
    const chunks: Buffer[] = [];
    const dripper = setInterval(() => socket.writable && socket.write(drip), 100);
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still connected after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(dripper);
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - started });
    });
  });
}

describe('slow clients', () => {
  let api: TestApp;
  beforeAll(async () => {
    // The production deadlines are 10 s for headers and 30 s for a request; shortened here, same mechanism.
    api = await startApp({}, { httpTimeouts: { ...HTTP_TIMEOUTS, headersMs: 600, requestMs: 1_500, checkEveryMs: 200 } });
  });
  afterAll(() => api.close());

  it('answers headers that never end 408 request_timeout and closes the connection', async () => {
    const result = await trickle(api.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.text).toContain('"error":"request_timeout"');
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(600);
    expect(result.closedAfterMs).toBeLessThan(3_000);
  });

  it('answers a body that trickles in past the request deadline 408 and closes the connection', async () => {
    const head = 'POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    const result = await trickle(api.url, head, ' ');
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.text).toContain('"error":"request_timeout"');
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1_500);
    expect(result.closedAfterMs).toBeLessThan(4_000);
  });

  it('answers a body that stops arriving 408 at the request deadline, before the idle time closes it silently', async () => {
    const head = 'POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const result = await trickle(api.url, head, '', 8_000);
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1_500);
    expect(result.closedAfterMs).toBeLessThan(4_000);
  });

  it("logs the 408 it sent as the request's status", async () => {
    // A length of its own, to tell its line from the other tests'; an address of its own, since the
    // node writes one such line an address a minute.
    const head = 'POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1234\r\n\r\n{';
    const before = api.logs.length;
    await trickle(api.url, head, '', 8_000, '127.0.0.31');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const lines = api.logs
      .slice(before)
      .map((line) => JSON.parse(line) as { msg: string; status?: number; requestBytes?: number; level: number })
      .filter((line) => line.requestBytes === 1234);
    expect(lines).toEqual([expect.objectContaining({ level: 40, status: 408, msg: 'request refused' })]);
  });

  it('still serves other clients meanwhile', async () => {
    const slow = trickle(api.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
    const response = await fetch(`${api.url}/healthz`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    await slow;
  });
});
