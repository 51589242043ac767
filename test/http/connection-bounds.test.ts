// What one client can make a node hold, through raw sockets on loopback: a pipelined flood that never reads
// its answers is cut off with memory bounded, no address holds more than its share of connections, and a
// node at its cap makes room by closing an idle connection.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_TIMEOUTS } from '../../src/app.js';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { openSockets, residentMb } from '../support/process-stats.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';

const opened = (port: number, from = '127.0.0.1') =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
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
      // From an address of its own: the first of them bars it, and the health check comes from elsewhere.
      const socket = await opened(port, '127.0.0.2');
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

/** A connection from `from` (a loopback address: all of 127/8 is this machine's). */
const openedFrom = (port: number, from: string) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
    socket.once('error', reject);
  });

/** Whether the server closes `socket` rather than answer a request sent on it. */
const closedUnanswered = (socket: Socket) =>
  new Promise<boolean>((resolve) => {
    socket
      .once('close', () => resolve(true))
      .on('error', () => undefined)
      .on('data', () => resolve(false));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    setTimeout(() => resolve(false), 2_000);
  });

/** The answer to one GET /healthz on a connection that stays open. */
const healthOn = (socket: Socket) =>
  new Promise<string>((resolve) => {
    socket.once('data', (chunk) => resolve(String(chunk)));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** A connection from `from` with a request underway: its body is still coming. */
const busyFrom = async (port: number, from: string) => {
  const socket = await openedFrom(port, from);
  socket.write('POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{');
  return socket;
};

/** Ten pipelined requests from `from` in one write, none of their answers read: resolves once the node closed the connection. */
async function pipelinedPastTheBound(port: number, from: string): Promise<void> {
  const flood = await openedFrom(port, from);
  flood.on('error', () => undefined);
  const closed = new Promise((resolve) => flood.once('close', resolve));
  flood.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(10));
  await closed;
}

describe('MAX_CONNECTIONS_PER_ADDRESS', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off', MAX_CONNECTIONS_PER_ADDRESS: '3', TRUST_PROXY: '127.0.0.3' });
  });
  afterAll(() => api.close());

  it("closes an address's connection beyond its cap at once when each of its connections has a request underway, while another address is served", async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 3 }, () => busyFrom(port, '127.0.0.2')));
    await settle();
    expect(await closedUnanswered(await openedFrom(port, '127.0.0.2'))).toBe(true);
    const answer = new Promise<string>((resolve) => held[0]!.once('data', (chunk) => resolve(String(chunk))));
    held[0]!.write('"a":1}    ');
    expect(await answer).toMatch(/^HTTP\/1\.1 400 /);
    const response = await fetch(`${api.url}/healthz`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    for (const socket of held) socket.destroy();
  });

  it("makes room for an address's newcomer by closing that address's oldest idle connection, as an HTTP client's pool keeps some", async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 3 }, () => openedFrom(port, '127.0.0.7')));
    for (const socket of held) expect(await healthOn(socket)).toMatch(/^HTTP\/1\.1 200 /);
    const oldestClosed = new Promise((resolve) => held[0]!.once('close', resolve));
    expect(await healthOn(await openedFrom(port, '127.0.0.7'))).toMatch(/^HTTP\/1\.1 200 /);
    await oldestClosed;
    expect(await healthOn(held[1]!)).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of held) socket.destroy();
  });

  it('logs the closed connections of an address once, with how many followed, not a line a socket', async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 3 }, () => busyFrom(port, '127.0.0.4')));
    await settle();
    const refused = await Promise.all(Array.from({ length: 20 }, () => openedFrom(port, '127.0.0.4').then(closedUnanswered)));
    expect(refused.every(Boolean)).toBe(true);
    const lines = api.logs.map((line) => JSON.parse(line) as { msg: string; address?: string; reason?: string; level: number }).filter((line) => line.address === '127.0.0.4');
    expect(lines).toEqual([expect.objectContaining({ level: 40, reason: 'address-cap', msg: expect.stringContaining('MAX_CONNECTIONS_PER_ADDRESS (3)') })]);
    for (const socket of held) socket.destroy();
  });

  it("closes a trusted proxy's connection that pipelines past the bound without barring the proxy, and says so", async () => {
    const port = Number(new URL(api.url).port);
    await pipelinedPastTheBound(port, '127.0.0.3');
    expect(await healthOn(await openedFrom(port, '127.0.0.3'))).toMatch(/^HTTP\/1\.1 200 /);
    const lines = api.logs.map((line) => JSON.parse(line) as { msg: string; reason?: string }).filter((line) => line.reason === 'pipelining');
    expect(lines).toEqual([expect.objectContaining({ msg: expect.stringContaining('trusted proxy, which is not barred') })]);
    expect(lines[0]!.msg).not.toMatch(/barred for a minute/);
  });

  it('does not cap a trusted proxy, whose connections carry many clients', async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 6 }, () => openedFrom(port, '127.0.0.3')));
    await settle();
    const answers = await Promise.all(held.map(healthOn));
    expect(answers.every((answer) => /^HTTP\/1\.1 200 /.test(answer))).toBe(true);
    for (const socket of held) socket.destroy();
  });
});

describe('MAX_CONNECTIONS', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off', MAX_CONNECTIONS: '5' });
  });
  afterAll(() => api.close());

  it('makes room for a newcomer by closing the oldest idle connection', async () => {
    const port = Number(new URL(api.url).port);
    const held = await Promise.all(Array.from({ length: 5 }, (_, i) => openedFrom(port, `127.0.1.${i + 1}`)));
    // Each has been answered once and is idle; the first is the oldest.
    for (const socket of held) expect(await healthOn(socket)).toMatch(/^HTTP\/1\.1 200 /);
    const firstClosed = new Promise((resolve) => held[0]!.once('close', resolve));
    const newcomer = await openedFrom(port, '127.0.1.9');
    expect(await healthOn(newcomer)).toMatch(/^HTTP\/1\.1 200 /);
    await firstClosed;
    expect(await healthOn(held[1]!)).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of [...held, newcomer]) socket.destroy();
  });

  it('makes room for a newcomer, when none is idle, by answering 408 to the connection that has waited longest on its body', async () => {
    const port = Number(new URL(api.url).port);
    const held: Socket[] = [];
    for (let i = 0; i < 5; i++) {
      held.push(await busyFrom(port, `127.0.2.${i + 1}`));
      await settle();
    }
    const longest = new Promise<string>((resolve) => held[0]!.once('data', (chunk) => resolve(String(chunk))));
    expect(await healthOn(await openedFrom(port, '127.0.2.9'))).toMatch(/^HTTP\/1\.1 200 /);
    expect(await longest).toMatch(/^HTTP\/1\.1 408 [^]*"error":"request_timeout"/);
    // The others are still served.
    const answer = new Promise<string>((resolve) => held[1]!.once('data', (chunk) => resolve(String(chunk))));
    held[1]!.write('"a":1}    ');
    expect(await answer).toMatch(/^HTTP\/1\.1 400 /);
    for (const socket of held) socket.destroy();
  });
});

describe('a client that pipelines', () => {
  let api: TestApp;
  let siteverify: TestSiteverify;
  beforeAll(async () => {
    siteverify = await startSiteverify();
    api = await startApp({ RATE_LIMITS: 'off', TURNSTILE_SECRET_KEY: siteverify.secret, TURNSTILE_SITE_KEY: 'site-key', TURNSTILE_VERIFY_URL: siteverify.url });
  });
  afterAll(async () => {
    await api.close();
    await siteverify.close();
  });

  it('is not read further while its answers are queued: requests it sends meanwhile are answered in order, not cut off', async () => {
    const socket = await opened(Number(new URL(api.url).port));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const health = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    // The first answer waits on a human check that never answers (503 after its deadline); two queue behind it.
    const body = JSON.stringify(inquiry({ turnstileToken: 'stall' }));
    socket.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}${health.repeat(2)}`);
    await settle();
    // Read at once, these would make more answers owed than the node queues for one connection.
    socket.write(health.repeat(4));
    await settle();
    socket.end('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await closed;
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    expect(statuses).toEqual([503, ...Array.from({ length: 7 }, () => 200)]);
  });
});

describe('an address that pipelines past the bound', () => {
  let api: TestApp;
  let now = Date.now();
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { clock: { now: () => now } });
  });
  afterAll(() => api.close());

  it('is barred for a minute: its next connections are closed at once while another address is served, then let back', async () => {
    const port = Number(new URL(api.url).port);
    await pipelinedPastTheBound(port, '127.0.0.5');
    expect(await closedUnanswered(await openedFrom(port, '127.0.0.5'))).toBe(true);
    expect(await healthOn(await openedFrom(port, '127.0.0.6'))).toMatch(/^HTTP\/1\.1 200 /);
    now += 60_000;
    expect(await healthOn(await openedFrom(port, '127.0.0.5'))).toMatch(/^HTTP\/1\.1 200 /);
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

describe('a burst of newcomers', () => {
  it('waits in the node’s line, not the kernel’s: 1,200 connections made while its event loop is stopped all complete their handshake and are answered', { timeout: 30_000 }, async () => {
    const node = await startServe({ RATE_LIMITS: 'off', DATABASE_URL: 'sqlite::memory:', MAX_CONNECTIONS_PER_ADDRESS: '2048' });
    const port = Number(new URL(node.url).port);
    const handshaken = (socket: Socket) =>
      new Promise<boolean>((resolve) => {
        const giveUp = setTimeout(() => resolve(false), 2_000);
        socket.once('connect', () => {
          clearTimeout(giveUp);
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
    const answered = (socket: Socket) =>
      new Promise<boolean>((resolve) => {
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.once('close', () => resolve(answer.startsWith('HTTP/1.1 200 ')));
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      });
    process.kill(node.child.pid!, 'SIGSTOP');
    try {
      const sockets = Array.from({ length: 1_200 }, () => connect(port, '127.0.0.1'));
      const made = await Promise.all(sockets.map(handshaken));
      expect(made.filter(Boolean)).toHaveLength(1_200);
      process.kill(node.child.pid!, 'SIGCONT');
      expect((await Promise.all(sockets.map(answered))).filter(Boolean)).toHaveLength(1_200);
    } finally {
      process.kill(node.child.pid!, 'SIGCONT');
      node.child.kill('SIGTERM');
      await node.exited;
    }
  });
});
