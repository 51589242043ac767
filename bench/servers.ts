// The servers the bench loads: Portico in-process, a bare node:http twin replaying its answers, an SMTP sink.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  headers: Record<string, string>;
  body: string;
}

/** The SMTP sink runs in its own process, as a real mail server would, so it takes no time from Portico's event loop. */
export async function startSmtpSink(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'smtp-sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
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
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    SMTP_URL: smtpUrl,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'silent',
  });
  const deps = await buildDeps(config);
  const app = await buildApp(deps);
  await app.listen({ host: config.host, port: 0 });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

// Node's http layer writes these itself, for both servers alike.
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function recordAnswer(baseUrl: string, request: BenchRequest): Promise<Answer> {
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !WRITTEN_BY_NODE.has(name)));
  return { status: response.status, headers, body: await response.text() };
}

/** A bare node:http server that reads the request body and answers what Portico answered; 404 otherwise. */
export async function startBare(answers: ReadonlyMap<string, Answer>): Promise<Running> {
  const server = createServer((request, response) => {
    request.on('end', () => {
      const answer = answers.get(answerKey({ method: request.method as BenchRequest['method'], path: request.url ?? '' }));
      if (!answer) return response.writeHead(404, { 'content-length': '0' }).end();
      response.writeHead(answer.status, answer.headers).end(answer.body);
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

export const answerKey = (request: BenchRequest) => `${request.method} ${request.path}`;
