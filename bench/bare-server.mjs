// The baseline: a bare node:http server with no framework that reads each request body and answers,
// byte for byte, what Portico answered to that request. Plain JavaScript, so no loader runs in it.
// The parent tells it each scenario's answer over IPC just before the scenario runs (several share a path).
import { createServer } from 'node:http';

const answers = new Map();

const server = createServer((request, response) => {
  request.on('end', () => {
    const answer = answers.get(`${request.method} ${request.url}`);
    if (!answer) return response.writeHead(404, { 'content-length': '0' }).end();
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
  request.resume();
});
// Fastify's default, so both servers send `Keep-Alive: timeout=72`.
server.keepAliveTimeout = 72_000;

process.on('message', (message) => {
  answers.set(message.key, { status: message.answer.status, headers: message.answer.headers.flat(), body: message.answer.body });
  process.send({ ok: message.key });
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
