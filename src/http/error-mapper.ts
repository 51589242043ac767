// The one place errors become responses: {error, error_description, ok:false}, JSON, never cached (D9).
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, type Problem } from '../errors.js';
import { answering } from './connection-limits.js';
import { logUnrouted, STATUS_SENT_ON_SOCKET } from './request-log.js';

const FASTIFY_CODES: Record<string, AppError['code']> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
};

/** Turns anything thrown into an AppError; what is not a known client error becomes an opaque 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as { code?: string; statusCode?: number; message?: string };
  const mapped = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new AppError(mapped, e.message ?? mapped);
  // Fastify's own 4xx (unparsable JSON, empty body, bad headers) carry safe, generic messages.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('invalid_request', e.message ?? 'invalid request');
  }
  return new AppError('server_error', 'internal server error');
}

const errorBody = (problem: Problem) => JSON.stringify({ error: problem.code, error_description: problem.description, ok: false });

/** Answers `problem` with its status and headers and the one error body (D9), never cached. */
export function sendError(reply: FastifyReply, problem: Problem): FastifyReply {
  reply.code(problem.status);
  for (const name in problem.headers) reply.header(name, problem.headers[name]);
  return reply.header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8').header('x-content-type-options', 'nosniff').send(errorBody(problem));
}

/** The code answerClientError answers for a body slower than MIN_BODY_RATE (connection-limits.ts). */
export const BODY_TOO_SLOW = 'PORTICO_BODY_TOO_SLOW';

/** What node:http's parser refused (llhttp error codes), before any route or hook could run. */
function clientError(code: string | undefined): AppError {
  if (code === BODY_TOO_SLOW) return new AppError('request_timeout', 'the request body arrived too slowly (MIN_BODY_RATE)');
  if (code === 'HPE_HEADER_OVERFLOW') return new AppError('request_header_fields_too_large', 'the request headers exceed 16 KiB');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_REQUEST_TIMEOUT') return new AppError('request_timeout', 'the request did not arrive in time');
  return new AppError('invalid_request', 'the request is not valid HTTP/1.1 (RFC 9112)');
}

/**
 * Fastify's clientErrorHandler: the parser's refusals get the one error body too (D9), written to the
 * socket by hand because no request object exists; then the connection closes, as RFC 9112 section
 * 9.6 expects after a framing error.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket & { [STATUS_SENT_ON_SOCKET]?: number }): void {
  // Nothing to answer: the peer is gone (reset, or closed before its request ended), or a response is
  // already on its way out (answering, connection-limits.ts).
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable || answering(socket)) {
    socket.destroy();
    return;
  }
  const appError = clientError(error.code);
  const body = errorBody(appError);
  socket[STATUS_SENT_ON_SOCKET] = appError.status;
  socket.end(
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** node:http's 'checkExpectation': an Expect other than 100-continue gets 417 (RFC 9110 section 10.1.1). */
export function answerUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  const appError = new AppError('expectation_failed', `Expect: ${String(request.headers.expect)} is not supported; only 100-continue is`);
  const body = errorBody(appError);
  response.writeHead(appError.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end(body);
}

/**
 * Installs the error and not-found handlers. `allowedMethods` tells a wrong method on a known path
 * (405 with Allow) from an unknown path (404).
 */
export function installErrorHandling(app: FastifyInstance, allowedMethods: (path: string) => string[] | undefined): void {
  const notFound = (method: string, url: string): AppError => {
    const path = url.split('?', 1)[0] ?? '/';
    const methods = allowedMethods(path);
    if (methods) return new AppError('method_not_allowed', `${method} is not allowed on ${path}`, { allow: methods.join(', ') });
    return new AppError('not_found', `no route for ${method} ${path}`);
  };
  app.setErrorHandler((error, request, reply) => {
    // A body that fails to parse on a path no route serves is still a 404 or 405, not a parse error.
    if (request.is404) return sendError(reply, notFound(request.method, request.url));
    const code = (error as { code?: string }).code;
    if (request.routeOptions.config.jsonRpc && (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')) {
      // JSON-RPC 2.0 section 5.1: a body that is not JSON is a Parse error, answered with id null.
      return reply
        .code(400)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } }));
    }
    const appError = toAppError(error);
    if (appError.status >= 500 && appError.code === 'server_error') request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    logUnrouted(request, reply);
    sendError(reply, notFound(request.method, request.url));
  });
}
