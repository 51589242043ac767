// What one connection can make a node hold. A client may pipeline many requests in one write and never read
// the answers: node:http stops reading such a socket, but answers every request it has already parsed, and
// those answers wait in memory (100 sockets of 64 KB of pipelined GET /openapi.json held 300 MB). A socket
// with more than MAX_PIPELINED answers unsent is closed: browsers and HTTP clients never pipeline that deep.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const MAX_PIPELINED = 4;

const PENDING = Symbol('portico.pendingResponses');
const SOCKET = Symbol('portico.socket');
type CountedSocket = Socket & { [PENDING]?: number };
type CountedResponse = ServerResponse & { [SOCKET]?: CountedSocket };

/**
 * Counts each socket's answers from request to close (finished, or abandoned). A request beyond the limit, or
 * one parsed from a socket already closed, is dropped before the app sees it: node:http goes on parsing the
 * rest of a pipelined chunk after the socket is closed, and none of it should cost more than its parsing.
 */
export function limitPipelining(server: Server, maxPending = MAX_PIPELINED): void {
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: CountedResponse) => {
    const socket = request.socket as CountedSocket;
    if (socket.destroyed) return;
    const pending = (socket[PENDING] ?? 0) + 1;
    if (pending > maxPending) return void socket.destroy();
    socket[PENDING] = pending;
    response[SOCKET] = socket;
    response.once('close', released);
    for (const handler of handlers) handler.call(server, request, response);
  });
}

function released(this: CountedResponse): void {
  const socket = this[SOCKET]!;
  socket[PENDING]! -= 1;
}

