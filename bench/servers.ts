// The servers the bench loads: Portico in-process, a bare node:http twin replaying its answers, an SMTP sink.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { buildDeps } from '../src/deps.js';

export interface Running {
  url: string;
  close(): Promise<void>;
}

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What a server answered to one request: replayed byte for byte by the bare server. */
export interface Answer {
  status: number;
  /** Name/value pairs in the order and case they came on the wire. */
  headers: [string, string][];
  body: string;
}

/** The SMTP sink runs in its own process, as a real mail server would, so it takes no time from Portico's event loop. */
export async function startSmtpSink(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'smtp-sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit').then(() => Promise.reject(new Error('the SMTP sink exited before listening')));
  const [line] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer];
  exited.catch(() => {});
  return {
    url: line.toString().trim(),
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
  };
}

/** Portico as production builds it, with rate limits off, silent logs and its own SQLite file in `dir`. */
export async function startPortico(smtpUrl: string, dir: string): Promise<Running> {
  // PUBLIC_URL must be the real origin: /mcp answers only Hosts that name this server (D3).
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    SMTP_URL: smtpUrl,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'silent',
  });
  const deps = await buildDeps(config);
  const app = await buildApp(deps);
  await app.listen({ host: config.host, port });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

export const answerKey = (request: Pick<BenchRequest, 'method' | 'path'>) => `${request.method} ${request.path}`;

// Node's http layer writes these itself, for both servers alike.
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function recordAnswer(baseUrl: string, request: BenchRequest): Promise<Answer> {
  const req = httpRequest(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers });
  req.end(request.body);
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of response) body += chunk;
  const headers: [string, string][] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    const [name, value] = [response.rawHeaders[i]!, response.rawHeaders[i + 1]!];
    if (!WRITTEN_BY_NODE.has(name.toLowerCase())) headers.push([name, value]);
  }
  return { status: response.statusCode!, headers, body };
}

/** A bare node:http server that reads the request body and answers what Portico answered; 404 otherwise. */
export async function startBare(answers: ReadonlyMap<string, Answer>): Promise<Running> {
  const server = createServer((request, response) => {
    request.on('end', () => {
      const answer = answers.get(answerKey({ method: request.method as BenchRequest['method'], path: request.url ?? '' }));
      if (!answer) return response.writeHead(404, { 'content-length': '0' }).end();
      response.writeHead(answer.status, answer.headers.flat()).end(answer.body);
    });
    request.resume();
  });
  // Fastify's default, so both send `Keep-Alive: timeout=72`.
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function freePort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
