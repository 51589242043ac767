// The connection guard on a bare node:http server, without the app: what it counts, what it closes and
// why, and when an answer is on its way out. test/http/connection-bounds.test.ts runs it inside the app.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answering, guardConnections, PIPELINING_CLOSES_PER_TURN, type ClosedReason } from './connection-limits.js';

interface Guarded {
  port: number;
  closed: [ClosedReason, string][];
  /** The answers the server holds, unsent, by request path. */
  held: Map<string, ServerResponse>;
  server: Server;
}

let servers: Server[] = [];
let sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
  sockets = [];
});

/** A server that answers /ok at once and holds /hold/<name> until the test answers it. */
async function guarded(
  policy: { maxConnections?: number; maxPerAddress?: number; minBodyRate?: number; uncapped?: string[]; now?: () => number; onClosed?: (reason: ClosedReason) => void },
  maxQueued?: number,
): Promise<Guarded> {
  const closed: [ClosedReason, string][] = [];
  const held = new Map<string, ServerResponse>();
  const server = createServer((request, response) => {
    if (request.url!.startsWith('/hold/')) held.set(request.url!, response);
    else response.end('ok');
  });
  guardConnections(
    server,
    {
      maxConnections: policy.maxConnections ?? 100,
      maxPerAddress: policy.maxPerAddress ?? 100,
      minBodyRate: policy.minBodyRate ?? 0,
      refuseSlowBody: (socket) => socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
      uncapped: (address) => policy.uncapped?.includes(address) ?? false,
      closed: (reason, address) => {
        closed.push([reason, address]);
        policy.onClosed?.(reason);
      },
      clock: { now: policy.now ?? (() => Date.now()) },
    },
    maxQueued,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, closed, held, server };
}

function from(port: number, address: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: address }, () => resolve(socket));
    sockets.push(socket);
    socket.once('error', reject);
  });
}

/** Sends a GET and resolves with the status line of the answer, or 'closed' if the connection ends first. */
function get(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      socket.off('close', onClose);
      resolve(String(chunk).split('\r\n')[0]!);
    };
    const onClose = () => {
      socket.off('data', onData);
      resolve('closed');
    };
    socket.once('data', onData);
    socket.once('close', onClose);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  });
}

const closedAtOnce = (socket: Socket) => new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('guardConnections', () => {
  it("closes an address's newcomer beyond its cap when each of its connections has a request underway, and says why", async () => {
    const node = await guarded({ maxPerAddress: 2 });
    const busy = await Promise.all([from(node.port, '127.0.0.2'), from(node.port, '127.0.0.2')]);
    busy.forEach((socket, i) => socket.write(`GET /hold/${i} HTTP/1.1\r\nHost: x\r\n\r\n`));
    await turn();
    const newcomer = await from(node.port, '127.0.0.2');
    expect(await closedAtOnce(newcomer)).toBe(true);
    expect(node.closed).toEqual([['address-cap', '127.0.0.2']]);
    expect(await get(await from(node.port, '127.0.0.3'), '/ok')).toBe('HTTP/1.1 200 OK');
  });

  it("makes room for an address's newcomer by closing its oldest idle connection, never a busy one", async () => {
    const node = await guarded({ maxPerAddress: 3 });
    const [busy, oldestIdle, idle] = await Promise.all([from(node.port, '127.0.0.2'), from(node.port, '127.0.0.2'), from(node.port, '127.0.0.2')]);
    busy!.write('GET /hold/busy HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await get(oldestIdle!, '/ok')).toBe('HTTP/1.1 200 OK');
    expect(await get(idle!, '/ok')).toBe('HTTP/1.1 200 OK');
    const closing = closedAtOnce(oldestIdle!);
    expect(await get(await from(node.port, '127.0.0.2'), '/ok')).toBe('HTTP/1.1 200 OK');
    await closing;
    expect(node.closed).toEqual([['made-room', '127.0.0.2']]);
    expect(busy!.destroyed).toBe(false);
  });

  it('counts every connection against MAX_CONNECTIONS, those of uncapped peers included, which no address cap limits', async () => {
    const node = await guarded({ maxConnections: 3, maxPerAddress: 1, uncapped: ['127.0.0.9'] });
    const proxy = await Promise.all([from(node.port, '127.0.0.9'), from(node.port, '127.0.0.9'), from(node.port, '127.0.0.9')]);
    proxy.forEach((socket, i) => socket.write(`GET /hold/${i} HTTP/1.1\r\nHost: x\r\n\r\n`));
    await turn();
    expect(node.closed).toEqual([]);
    expect(await closedAtOnce(await from(node.port, '127.0.0.2'))).toBe(true);
    expect(node.closed).toEqual([['node-full', '127.0.0.2']]);
  });

  it('makes room at MAX_CONNECTIONS, when none is idle, by answering 408 to the connection that has waited longest on its body', async () => {
    const node = await guarded({ maxConnections: 3 });
    const [longest, later] = [await from(node.port, '127.0.0.2'), await from(node.port, '127.0.0.3')];
    longest.write('POST /hold/longest HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{');
    await turn();
    later.write('POST /hold/later HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{');
    const busy = await from(node.port, '127.0.0.4');
    busy.write('GET /hold/busy HTTP/1.1\r\nHost: x\r\n\r\n');
    await turn();
    const refused = new Promise<string>((resolve) => longest.once('data', (chunk) => resolve(String(chunk).split('\r\n')[0]!)));
    expect(await get(await from(node.port, '127.0.0.5'), '/ok')).toBe('HTTP/1.1 200 OK');
    expect(await refused).toBe('HTTP/1.1 408 Request Timeout');
    expect(node.closed).toEqual([['made-room-slow-body', '127.0.0.2']]);
    expect(later.destroyed || busy.destroyed).toBe(false);
  });

  it('answers 408 to a request body that averages less than MIN_BODY_RATE once its grace is past, and spares one that keeps up', async () => {
    let now = 1_000_000;
    const node = await guarded({ minBodyRate: 100, now: () => now });
    const [slow, steady] = [await from(node.port, '127.0.0.2'), await from(node.port, '127.0.0.3')];
    for (const socket of [slow, steady]) socket.write('POST /hold/body HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
    await turn();
    // 6 s on the clock: 1 s past the grace, the floor is 100 bytes; one sent 50, the other 150.
    slow.write('x'.repeat(50));
    steady.write('x'.repeat(150));
    now += 6_000;
    const refused = new Promise<string>((resolve) => slow.once('data', (chunk) => resolve(String(chunk).split('\r\n')[0]!)));
    expect(await refused).toBe('HTTP/1.1 408 Request Timeout');
    expect(await closedAtOnce(slow)).toBe(true);
    expect(node.closed).toEqual([['slow-body', '127.0.0.2']]);
    expect(steady.destroyed).toBe(false);
  });

  it('closes at most PIPELINING_CLOSES_PER_TURN pipelining connections in one turn of the event loop, reading the others in later turns', async () => {
    // The server runs in this process: each turn of its loop ends with this check-phase callback.
    let turnNo = 0;
    let turning = true;
    const tick = () => {
      turnNo++;
      if (turning) setImmediate(tick);
    };
    const pipeliningTurns: number[] = [];
    const node = await guarded({ onClosed: (reason) => reason === 'pipelining' && pipeliningTurns.push(turnNo) }, 2);
    // From 40 addresses: one address's other connections go with its first that pipelines.
    const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => from(node.port, `127.0.1.${i + 1}`)));
    await turn();
    tick();
    const allClosed = Promise.all(flood.map(closedAtOnce));
    const requests = 'GET /hold/a HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(4);
    for (const socket of flood) socket.on('error', () => undefined).write(requests);
    await allClosed;
    turning = false;
    expect(pipeliningTurns).toHaveLength(40);
    const mostInOneTurn = Math.max(...pipeliningTurns.map((t) => pipeliningTurns.filter((u) => u === t).length));
    expect(mostInOneTurn).toBeLessThanOrEqual(PIPELINING_CLOSES_PER_TURN);
  });

  it("closes the other connections of an address it bars, and no other address's", async () => {
    const node = await guarded({}, 2);
    const [first, second, elsewhere] = [await from(node.port, '127.0.0.2'), await from(node.port, '127.0.0.2'), await from(node.port, '127.0.0.3')];
    expect(await get(second, '/ok')).toBe('HTTP/1.1 200 OK');
    const bothClosed = Promise.all([closedAtOnce(first), closedAtOnce(second)]);
    first.on('error', () => undefined).write('GET /hold/a HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(4));
    await bothClosed;
    expect(node.closed).toEqual([
      ['pipelining', '127.0.0.2'],
      ['barred', '127.0.0.2'],
    ]);
    expect(await get(elsewhere, '/ok')).toBe('HTTP/1.1 200 OK');
  });

  it('bars an address that pipelines past the bound until its minute has passed on the clock, and lets others in meanwhile', async () => {
    let now = 1_000_000;
    const node = await guarded({ now: () => now }, 2);
    const flood = await from(node.port, '127.0.0.2');
    flood.on('error', () => undefined);
    const closed = closedAtOnce(flood);
    flood.write('GET /hold/a HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(4));
    await closed;
    expect(await closedAtOnce(await from(node.port, '127.0.0.2'))).toBe(true);
    expect(await get(await from(node.port, '127.0.0.3'), '/ok')).toBe('HTTP/1.1 200 OK');
    now += 59_999;
    expect(await closedAtOnce(await from(node.port, '127.0.0.2'))).toBe(true);
    now += 1;
    expect(await get(await from(node.port, '127.0.0.2'), '/ok')).toBe('HTTP/1.1 200 OK');
    expect(node.closed).toEqual([
      ['pipelining', '127.0.0.2'],
      ['barred', '127.0.0.2'],
      ['barred', '127.0.0.2'],
    ]);
  });
});

describe('answering', () => {
  /** The server side of the client's next connection. */
  /** A guarded server, a client connected to it, and the server's side of that connection. */
  const connected = async () => {
    const node = await guarded({});
    const serverSide = new Promise<Socket>((resolve) => node.server.once('connection', resolve));
    const client = await from(node.port, '127.0.0.2');
    return { node, client, serverSide: await serverSide };
  };

  it('is false on a connection that has sent nothing, and while its answer is not begun', async () => {
    const { client, serverSide } = await connected();
    expect(answering(serverSide)).toBe(false);
    client.write('GET /hold/one HTTP/1.1\r\nHost: x\r\n\r\n');
    await turn();
    expect(answering(serverSide)).toBe(false);
  });

  it('is true once the answer has its head written, and false again once it is sent', async () => {
    const { node, client, serverSide } = await connected();
    client.write('GET /hold/one HTTP/1.1\r\nHost: x\r\n\r\n');
    await turn();
    const response = node.held.get('/hold/one')!;
    response.writeHead(200, { 'content-length': '2' }).flushHeaders();
    expect(answering(serverSide)).toBe(true);
    await new Promise<void>((resolve) => response.end('ok', resolve));
    expect(answering(serverSide)).toBe(false);
  });

  it('is true while an answer waits behind another, not begun, on a connection that pipelines', async () => {
    const { node, client, serverSide } = await connected();
    client.write('GET /hold/first HTTP/1.1\r\nHost: x\r\n\r\nGET /hold/second HTTP/1.1\r\nHost: x\r\n\r\n');
    await turn();
    expect(node.held.size).toBe(2);
    expect(answering(serverSide)).toBe(true);
  });
});
