// What connections a node holds, and what one connection can make it hold (D19).
//
// No address holds more than its share: a client that opens connections by the hundred (idle after one
// request, or trickling its headers) would otherwise hold every slot of MAX_CONNECTIONS. A node at its cap
// closes its oldest idle connection to make room for a newcomer. A client may pipeline many requests in one
// write and never read the answers: a connection with answers queued is not read further until they are
// sent, and one with more than MAX_PIPELINED queued is closed. node:http parses the whole of each read (64 KB,
// some 1,300 minimal requests) before anyone can stop it, and each of those requests costs it again when the
// connection closes: a client that did that is barred for a minute, so that its next connections cost nothing.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock } from '../ports/clock.js';
import { addressKey } from './rate-limit-key.js';

export const MAX_PIPELINED = 4;
/** How long an address that pipelined past MAX_PIPELINED has its new connections closed at once. */
export const BARRED_MS = 60_000;
/** Addresses remembered as barred at once: a flood from many cannot grow the map. */
const MAX_BARRED = 10_000;

/** Why the guard closed a connection. */
export type ClosedReason = 'address-cap' | 'barred' | 'node-full' | 'made-room' | 'pipelining';

export interface ConnectionPolicy {
  /** MAX_CONNECTIONS: open connections in all. */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one address (IPv6 by its /64, as the rate limits count). */
  maxPerAddress: number;
  /** Peers whose connections carry many clients (trusted proxies): not capped by address. */
  uncapped(address: string): boolean;
  /** Told of every connection the guard closes, with the peer's address. */
  closed(reason: ClosedReason, address: string): void;
  clock: Clock;
}

const GUARD = Symbol('portico.connection');

interface Guarded {
  /** The address the connection counts under, or undefined when it is not capped by address. */
  key: string | undefined;
  /** The answer to the last request the connection sent: the connection is idle once it is sent. */
  lastResponse: ServerResponse | undefined;
  /** Answers parsed and waiting behind the one being sent. */
  queued: number;
  /** Whether keepPaused listens to the socket. */
  held: boolean;
}

type GuardedSocket = Socket & { [GUARD]?: Guarded };
type QueuedResponse = ServerResponse & { [GUARD]?: GuardedSocket };
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Counts open connections, in all and by address, and the answers queued on each. Must be installed before
 * the server listens, and in place of `server.maxConnections` (node:http would close a connection beyond
 * that before anyone could make room for it).
 */
export function guardConnections(server: Server, policy: ConnectionPolicy, maxQueued = MAX_PIPELINED): void {
  // In the order they were accepted: the first idle one found is the oldest.
  const open = new Set<GuardedSocket>();
  const byAddress = new Map<string, number>();
  // When each barred address may connect again; the first entry is the oldest.
  const barred = new Map<string, number>();

  const forget = (socket: GuardedSocket) => {
    const guarded = socket[GUARD];
    if (guarded === undefined || !open.delete(socket)) return;
    if (guarded.key !== undefined) {
      const left = byAddress.get(guarded.key)! - 1;
      if (left === 0) byAddress.delete(guarded.key);
      else byAddress.set(guarded.key, left);
    }
  };
  const close = (socket: GuardedSocket, reason: ClosedReason) => {
    policy.closed(reason, socket.remoteAddress ?? '');
    forget(socket);
    socket.destroy();
  };

  server.on('connection', (socket: GuardedSocket) => {
    const address = socket.remoteAddress ?? '';
    const key = policy.uncapped(address) ? undefined : addressKey(address);
    if (key !== undefined && barred.has(key)) {
      if (policy.clock.now() < barred.get(key)!) return close(socket, 'barred');
      barred.delete(key);
    }
    if (key !== undefined && (byAddress.get(key) ?? 0) >= policy.maxPerAddress) return close(socket, 'address-cap');
    if (open.size >= policy.maxConnections) {
      const oldestIdle = firstIdle(open);
      if (oldestIdle === undefined) return close(socket, 'node-full');
      close(oldestIdle, 'made-room');
    }
    socket[GUARD] = { key, lastResponse: undefined, queued: 0, held: false };
    open.add(socket);
    if (key !== undefined) byAddress.set(key, (byAddress.get(key) ?? 0) + 1);
    socket.once('close', () => forget(socket));
  });

  const handlers = server.listeners('request') as Handler[];
  // The access log's listener and Fastify's, called in turn without a closure a request.
  const handle: Handler =
    handlers.length === 1
      ? handlers[0]!.bind(server)
      : (request, response) => {
          for (const handler of handlers) handler.call(server, request, response);
        };
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: QueuedResponse) => {
    const socket = request.socket as GuardedSocket;
    // node:http goes on parsing the rest of a pipelined chunk after the socket is closed; none of it should
    // cost more than its parsing.
    if (socket.destroyed) return;
    const guarded = socket[GUARD];
    // A request injected by a test, or a socket from before the guard: nothing to count.
    if (guarded === undefined) return handle(request, response);
    guarded.lastResponse = response;
    // node:http gives a response its socket only once the answers before it are sent.
    if (response.socket === null) {
      if (guarded.queued === maxQueued) {
        if (guarded.key !== undefined) {
          if (barred.size >= MAX_BARRED) barred.delete(barred.keys().next().value!);
          barred.set(guarded.key, policy.clock.now() + BARRED_MS);
        }
        return close(socket, 'pipelining');
      }
      // Backpressure: the requests a client has not read the answers to are enough to work on.
      if (guarded.queued++ === 0) {
        socket.pause();
        if (!guarded.held) socket.on('resume', keepPaused);
        guarded.held = true;
      }
      response[GUARD] = socket;
      response.on('close', released);
    }
    handle(request, response);
  });
}

function released(this: QueuedResponse): void {
  const socket = this[GUARD]!;
  if (--socket[GUARD]!.queued === 0) socket.resume();
}

/**
 * node:http resumes a socket itself when it reads or discards a request's body (IncomingMessage's read and
 * dump call socket.resume()); its own backpressure survives that through a private flag. A socket with
 * answers still queued is paused again in the same tick, before any read can happen.
 */
function keepPaused(this: GuardedSocket): void {
  if (this[GUARD]!.queued > 0) this.pause();
}

/** The oldest connection with no request underway: never sent one, or its last answer is sent. */
function firstIdle(open: Set<GuardedSocket>): GuardedSocket | undefined {
  for (const socket of open) {
    const last = socket[GUARD]!.lastResponse;
    if (last === undefined || last.writableFinished) return socket;
  }
  return undefined;
}
