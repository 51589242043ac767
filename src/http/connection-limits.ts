// What one connection can make a node hold. A client may pipeline many requests in one write and never read
// the answers: node:http stops reading such a socket, but answers every request it has already parsed, and
// those answers wait in memory (100 sockets of 64 KB of pipelined GET /openapi.json held 300 MB). A socket
// with more than MAX_PIPELINED answers queued behind the one being sent is closed: browsers and HTTP clients
// never pipeline that deep.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const MAX_PIPELINED = 4;

const QUEUED = Symbol('portico.queuedResponses');
const SOCKET = Symbol('portico.socket');
type CountedSocket = Socket & { [QUEUED]?: number };
type CountedResponse = ServerResponse & { [SOCKET]?: CountedSocket };
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Counts the answers queued on each socket (node:http gives a response its socket only when the answers
 * before it are sent); one too many closes the socket. A request beyond the limit, or parsed from a socket
 * already closed, is dropped before the app sees it: node:http goes on parsing the rest of a pipelined
 * chunk after the socket is closed, and none of it should cost more than its parsing. A request that is not
 * pipelined, nearly every one, costs two property reads.
 */
export function limitPipelining(server: Server, maxQueued = MAX_PIPELINED): void {
  const handlers = server.listeners('request') as Handler[];
  // The access log's listener and Fastify's, called in turn without a closure a request.
  const handle: Handler =
    handlers.length === 1
      ? handlers[0]!.bind(server)
      : (request, response) => {
          for (const handler of handlers) handler.call(server, request, response);
        };
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: CountedResponse) => {
    const socket = request.socket as CountedSocket;
    if (socket.destroyed) return;
    if (response.socket === null) {
      const queued = (socket[QUEUED] ?? 0) + 1;
      if (queued > maxQueued) return void socket.destroy();
      socket[QUEUED] = queued;
      response[SOCKET] = socket;
      response.on('close', released);
    }
    handle(request, response);
  });
}

function released(this: CountedResponse): void {
  this[SOCKET]![QUEUED]! -= 1;
}
