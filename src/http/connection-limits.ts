// What connections a node holds, and what one connection can make it hold (D19).
//
// No address holds more than its share: a client that opens connections by the hundred (idle after one
// request, or trickling its headers) would otherwise hold every slot of MAX_CONNECTIONS. At either cap, the
// oldest idle connection (of the address, or of the node) is closed to make room for a newcomer, which is
// refused only when every connection it competes with has a request underway. A client may pipeline many requests in one
// write and never read the answers: a connection with answers queued is not read further until they are
// sent, and one with more than MAX_PIPELINED queued is closed. node:http parses the whole of each read (64 KB,
// some 1,300 minimal requests) before anyone can stop it, and each of those requests costs it again when the
// connection closes: a client that did that is barred for a minute, its other connections closed with it, so
// that they and its next connections cost nothing.
// Many addresses together: past PIPELINING_CLOSES_PER_TURN such closes in one turn of the event loop, the
// node reads no other connection until the next turn, so that what pipelining makes node:http parse at once
// is bounded whatever the number of addresses. A request body that comes slower than MIN_BODY_RATE is
// answered 408, and at the node's cap the connection that has waited longest on a body makes room for a
// newcomer when none is idle.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock } from '../ports/clock.js';
import { addressKey } from './rate-limit-key.js';

export const MAX_PIPELINED = 4;
/**
 * D19: above what the contact path's admission holds (64 in flight and 1,024 waiting), so that under
 * overload the waiting happens in that line, first come first served and answered 503 past its bounds,
 * and not in the kernel's listen backlog, which bounds nothing in time and which the node cannot see:
 * with a cap below the clients' connections, each newcomer closes a connection that has just been
 * answered, whose client then waits behind every other reconnecting one. 1,000 connections of
 * inquiries waited 2.7-3.7 s at p99 in the backlog at 512; 1.2 s at 2,048. An idle connection costs
 * a node some 13 KB (2,000 of them, 25 MB).
 */
export const MAX_CONNECTIONS = 2_048;
/**
 * D19: a browser opens at most six connections to a host, an HTTP client's pool a few more; 32 leaves room
 * for a household or an office behind one address. It also bounds what one address can make a node parse at
 * once: node:http parses the whole of each 64 KB read, and a read of pipelined requests costs it some 3 MB
 * until the connection is gone (docs/security.md).
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 32;
/**
 * D19: the bytes a second a request body must average once BODY_GRACE_MS are past, as Apache's
 * mod_reqtimeout asks by default (MinRate=500): a client on the slowest mobile link sends a contact form's
 * few kilobytes in well under its grace, while one that trickles a byte at a time to hold a connection is
 * answered 408 within seconds rather than at the request's 30 s deadline.
 */
export const MIN_BODY_RATE = 500;
/** MIN_BODY_RATE's grace before a body's rate is judged, as mod_reqtimeout's `body=5,MinRate=500`. */
export const BODY_GRACE_MS = 5_000;
/** How long a new connection may send nothing before it counts as idle, one that makes room for a newcomer. */
const SILENT_MS = 1_000;
/** How often bodies under way are checked against MIN_BODY_RATE. */
const BODY_CHECK_EVERY_MS = 1_000;
/**
 * Pipelining closes in one turn of the event loop before the node reads no other connection until the next:
 * what node:http parsed from a read goes only at the end of the turn (ten addresses read in one: +727 MB).
 */
export const PIPELINING_CLOSES_PER_TURN = 4;
/** How long an address that pipelined past MAX_PIPELINED has its new connections closed at once. */
export const BARRED_MS = 60_000;
/** Addresses remembered as barred at once: a flood from many cannot grow the map. */
const MAX_BARRED = 10_000;

/** Why the guard closed a connection. */
export type ClosedReason = 'address-cap' | 'barred' | 'node-full' | 'made-room' | 'made-room-slow-body' | 'pipelining' | 'slow-body';

export interface ConnectionPolicy {
  /** MAX_CONNECTIONS: open connections in all. */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one address (IPv6 by its /64, as the rate limits count). */
  maxPerAddress: number;
  /** Peers whose connections carry many clients (trusted proxies): not capped by address. */
  uncapped(address: string): boolean;
  /** MIN_BODY_RATE: the bytes a second a request body must average once BODY_GRACE_MS are past; 0: no floor. */
  minBodyRate: number;
  /** Answers a request whose body came too slowly (408), before the guard closes its connection. */
  refuseSlowBody(socket: Socket): void;
  /** Told of every connection the guard closes, with the peer's address. */
  closed(reason: ClosedReason, address: string): void;
  clock: Clock;
}

const GUARD = Symbol('portico.connection');

interface Guarded {
  /** The address the connection counts under, or undefined when it is not capped by address. */
  key: string | undefined;
  /** When it was accepted (the clock's ms). */
  acceptedAt: number;
  /** The answer to the last request the connection sent: the connection is idle once it is sent. */
  lastResponse: ServerResponse | undefined;
  /** Answers parsed and waiting behind the one being sent. */
  queued: number;
  /** Whether keepPaused listens to the socket. */
  held: boolean;
  /** When the last request's headers were in (the clock's ms), and the bytes read from the socket by then. */
  requestAt: number;
  readAtRequest: number;
}

type GuardedSocket = Socket & { [GUARD]?: Guarded };
type QueuedResponse = ServerResponse & { [GUARD]?: GuardedSocket };
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Whether an answer is on its way out on `socket`: its head written, or queued behind another's. Nothing
 * else may be written to the connection then; node:http tells the same from a private field.
 */
export function answering(socket: Socket): boolean {
  const last = (socket as GuardedSocket)[GUARD]?.lastResponse;
  return last !== undefined && !last.writableFinished && (last.headersSent || last.socket === null);
}

/**
 * Counts open connections, in all and by address, and the answers queued on each. Must be installed before
 * the server listens, and in place of `server.maxConnections` (node:http would close a connection beyond
 * that before anyone could make room for it).
 */
export function guardConnections(server: Server, policy: ConnectionPolicy, maxQueued = MAX_PIPELINED): void {
  // In the order they were accepted: the first idle one found is the oldest.
  const open = new Set<GuardedSocket>();
  // Each address's connections, in the order they were accepted.
  const byAddress = new Map<string, Set<GuardedSocket>>();
  // When each barred address may connect again; the first entry is the oldest.
  const barred = new Map<string, number>();

  const forget = (socket: GuardedSocket) => {
    const guarded = socket[GUARD];
    if (guarded === undefined || !open.delete(socket)) return;
    if (guarded.key !== undefined) {
      const ofAddress = byAddress.get(guarded.key)!;
      ofAddress.delete(socket);
      if (ofAddress.size === 0) byAddress.delete(guarded.key);
    }
  };
  const close = (socket: GuardedSocket, reason: ClosedReason) => {
    policy.closed(reason, socket.remoteAddress ?? '');
    forget(socket);
    socket.destroy();
  };
  /** Closes a connection whose body is too slow, after its 408: out of the counts at once, gone once the answer is written. */
  const refuse = (socket: GuardedSocket, reason: ClosedReason) => {
    policy.closed(reason, socket.remoteAddress ?? '');
    forget(socket);
    policy.refuseSlowBody(socket);
    socket.destroySoon();
  };

  server.on('connection', (socket: GuardedSocket) => {
    const address = socket.remoteAddress ?? '';
    const key = policy.uncapped(address) ? undefined : addressKey(address);
    if (key !== undefined && barred.has(key)) {
      if (policy.clock.now() < barred.get(key)!) return close(socket, 'barred');
      barred.delete(key);
    }
    const ofAddress = key === undefined ? undefined : byAddress.get(key);
    // An HTTP client's pool keeps connections it is not using; the address's oldest idle one makes room.
    if (ofAddress !== undefined && ofAddress.size >= policy.maxPerAddress) {
      const oldestIdle = firstIdle(ofAddress, policy.clock.now());
      if (oldestIdle === undefined) return close(socket, 'address-cap');
      close(oldestIdle, 'made-room');
    }
    if (open.size >= policy.maxConnections) {
      const oldestIdle = firstIdle(open, policy.clock.now());
      if (oldestIdle !== undefined) close(oldestIdle, 'made-room');
      else {
        // Every connection has a request under way: one whose body trickles in holds its place for nothing.
        const slowest = longestOnBody(open);
        if (slowest === undefined) return close(socket, 'node-full');
        refuse(slowest, 'made-room-slow-body');
      }
    }
    socket[GUARD] = { key, acceptedAt: policy.clock.now(), lastResponse: undefined, queued: 0, held: false, requestAt: 0, readAtRequest: 0 };
    open.add(socket);
    if (key !== undefined) byAddress.set(key, (byAddress.get(key) ?? new Set()).add(socket));
    socket.once('close', () => forget(socket));
  });

  if (policy.minBodyRate > 0) {
    const checking = setInterval(() => {
      const now = policy.clock.now();
      for (const socket of open) {
        if (!onBody(socket)) continue;
        const guarded = socket[GUARD]!;
        const judged = now - guarded.requestAt - BODY_GRACE_MS;
        if (judged <= 0 || socket.bytesRead - guarded.readAtRequest >= (policy.minBodyRate * judged) / 1000) continue;
        refuse(socket, 'slow-body');
      }
    }, BODY_CHECK_EVERY_MS);
    checking.unref();
    server.once('close', () => clearInterval(checking));
  }

  // Many addresses pipelining at once: past PIPELINING_CLOSES_PER_TURN in one turn of the event loop, every
  // other connection is not read for the rest of the turn (libuv skips the reads of a socket stopped in the
  // same turn), so that what node:http parses before the turn's closed connections are let go is bounded.
  let pipeliningThisTurn = 0;
  const stilled: GuardedSocket[] = [];
  const stillTheRest = () => {
    for (const socket of open) {
      if (socket.isPaused()) continue;
      socket.pause();
      stilled.push(socket);
    }
    setImmediate(() => {
      pipeliningThisTurn = 0;
      for (const socket of stilled.splice(0)) if (!socket.destroyed) socket.resume();
    });
  };

  // The access log's listener and Fastify's, called here in turn: a request of a closed connection runs neither.
  const handlers = server.listeners('request') as Handler[];
  const handle: Handler = (request, response) => {
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
    guarded.requestAt = policy.clock.now();
    guarded.readAtRequest = socket.bytesRead;
    // node:http gives a response its socket only once the answers before it are sent.
    if (response.socket === null) {
      if (guarded.queued === maxQueued) {
        close(socket, 'pipelining');
        if (guarded.key !== undefined) {
          if (barred.size >= MAX_BARRED) barred.delete(barred.keys().next().value!);
          barred.set(guarded.key, policy.clock.now() + BARRED_MS);
          // Its other connections go too, before their reads, which are most likely the same 64 KB.
          for (const other of byAddress.get(guarded.key) ?? []) close(other, 'barred');
        }
        if (++pipeliningThisTurn === PIPELINING_CLOSES_PER_TURN) stillTheRest();
        return;
      }
      guarded.queued++;
      if (!guarded.held) socket.on('resume', holdWhileQueued);
      guarded.held = true;
      // Once the chunk node:http is parsing is done: a request whose body is still coming needs the socket read.
      process.nextTick(holdWhileQueued.bind(socket));
      response[GUARD] = socket;
      response.on('close', released);
    }
    handle(request, response);
  });
}

function released(this: QueuedResponse): void {
  const socket = this[GUARD]!;
  if (--socket[GUARD]!.queued < 2 && socket.isPaused()) socket.resume();
}

/**
 * Backpressure: a connection with answers queued whose last request has arrived whole is not read further;
 * the requests it has not read the answers to are enough to work on. One answer queued is no pipelining: a
 * keep-alive client sends its next request as soon as it has read an answer, which can be before node:http
 * has seen that answer's write complete. node:http resumes a socket itself when
 * it reads or discards a request's body (IncomingMessage's read and dump call socket.resume()), and its own
 * backpressure survives that through a private flag: this runs again on every 'resume', in the same tick,
 * before any read can happen.
 */
function holdWhileQueued(this: GuardedSocket): void {
  const guarded = this[GUARD]!;
  if (guarded.queued > 1 && guarded.lastResponse!.req.complete && !this.destroyed) this.pause();
}

/** Whether the connection waits on its request's body: the headers are in, the body is not whole, and no answer has begun. */
function onBody(socket: GuardedSocket): boolean {
  const last = socket[GUARD]!.lastResponse;
  return last !== undefined && !last.req.complete && !last.headersSent && !last.writableFinished;
}

/** The connection that has waited longest on a request body, if any does. */
function longestOnBody(connections: Set<GuardedSocket>): GuardedSocket | undefined {
  let longest: GuardedSocket | undefined;
  for (const socket of connections) {
    if (onBody(socket) && (longest === undefined || socket[GUARD]!.requestAt < longest[GUARD]!.requestAt)) longest = socket;
  }
  return longest;
}

/**
 * The oldest connection with no request underway: its last answer is sent, or it has sent nothing for
 * SILENT_MS since it was accepted. One that has just been accepted is not idle: its request is on its way,
 * and making room with it would turn away the very client that made room before it.
 */
function firstIdle(connections: Set<GuardedSocket>, now: number): GuardedSocket | undefined {
  for (const socket of connections) {
    const { lastResponse, acceptedAt } = socket[GUARD]!;
    if (lastResponse === undefined ? now - acceptedAt >= SILENT_MS : lastResponse.writableFinished) return socket;
  }
  return undefined;
}
