// What one client can make a node hold, through raw sockets on loopback: a pipelined flood that never reads
// its answers is cut off with memory bounded, and connections beyond MAX_CONNECTIONS are refused at once.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_TIMEOUTS } from '../../src/app.js';
import { startApp, type TestApp } from '../support/app.js';
import { openSockets, residentMb } from '../support/process-stats.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const opened = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

describe('a pipelined flood that never reads', () => {
  let node: ServeProcess;
  beforeAll(async () => {
    node = await startServe({ RATE_LIMITS: 'off', DATABASE_URL: 'sqlite::memory:' });
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
  });

  it('is cut off: 100 sockets of 64 KB of GET /openapi.json leave memory and open sockets as they were', { timeout: 20_000 }, async () => {
    const pid = node.child.pid!;
    const port = Number(new URL(node.url).port);
    for (let i = 0; i < 20; i++) await (await fetch(`${node.url}/openapi.json`)).arrayBuffer();
    const [rssBefore, socketsBefore] = [await residentMb(pid), await openSockets(pid)];
    const request = `GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const burst = request.repeat(Math.floor((64 * 1024) / request.length));
    const sockets: Socket[] = [];
    const closed: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      const socket = await opened(port);
      socket.pause(); // never reads an answer
      socket.on('error', () => undefined);
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      socket.write(burst);
      sockets.push(socket);
    }
    let peakRss = rssBefore;
    let sockets2s = Infinity;
    const started = Date.now();
    while (Date.now() - started < 3_000) {
      peakRss = Math.max(peakRss, await residentMb(pid));
      if (Date.now() - started > 2_000) sockets2s = Math.min(sockets2s, await openSockets(pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
    // node:http still parses every request of each chunk it read (about 130,000 here), which costs some
    // memory for a moment; unbounded, the answers alone took 300 MB and stayed.
    expect(peakRss - rssBefore, `RSS ${rssBefore.toFixed(0)} -> peak ${peakRss.toFixed(0)} MB`).toBeLessThan(150);
    // Within two seconds the node had closed the flood's connections: its sockets are back to where they were.
    expect(sockets2s).toBeLessThanOrEqual(socketsBefore + 2);
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });
});

describe('MAX_CONNECTIONS', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off', MAX_CONNECTIONS: '5' });
  });
  afterAll(() => api.close());

  it('closes a connection beyond the cap at once, and serves the ones already open', async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 5 }, () => opened(port)));
    // Let the server accept them all before the sixth knocks.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = await opened(port);
    const extraClosed = await new Promise<boolean>((resolve) => {
      extra
        .once('close', () => resolve(true))
        .on('error', () => undefined)
        .on('data', () => resolve(false));
      extra.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      setTimeout(() => resolve(false), 2_000);
    });
    expect(extraClosed).toBe(true);
    const answer = await new Promise<string>((resolve) => {
      held[0]!.once('data', (chunk) => resolve(String(chunk)));
      held[0]!.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of held) socket.destroy();
  });
});

describe('idle connections', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { httpTimeouts: { ...HTTP_TIMEOUTS, requestMs: 10_000, idleMs: 400, keepAliveMs: 300 } });
  });
  afterAll(() => api.close());

  /** Milliseconds until the server closes `socket`. */
  const untilClosed = (socket: Socket) => {
    const started = Date.now();
    return new Promise<number>((resolve) =>
      socket
        .on('data', () => undefined)
        .on('error', () => undefined)
        .once('close', () => resolve(Date.now() - started)),
    );
  };

  it('closes a connection whose request stopped moving after the idle time, long before the request deadline', async () => {
    const socket = await opened(Number(new URL(api.url).port));
    socket.write('POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
    expect(await untilClosed(socket)).toBeLessThan(2_000);
  });

  it('closes an idle keep-alive connection after the keep-alive time', async () => {
    const socket = await opened(Number(new URL(api.url).port));
    const closed = untilClosed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await closed).toBeLessThan(3_000);
  });
});

describe('closing the app', () => {
  it('answers a keep-alive request that was underway, then closes its connection instead of keeping it for the keep-alive time', async () => {
    const api = await startApp({ RATE_LIMITS: 'off' });
    const socket = await opened(Number(new URL(api.url).port));
    const body = JSON.stringify({ name: 'Ana' });
    socket.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    const started = performance.now();
    const closed = api.close();
    socket.write(body.slice(5));
    await closed;
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).not.toMatch(/connection: close/i);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
