// Starts the real app on loopback HTTP, on its own SQLite file and outbox folder, with logs captured.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, HTTP_TIMEOUTS } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { buildDeps, type Deps, type DepsOptions } from '../../src/deps.js';
import { checkResponsesAgainstDocument } from './openapi-contract.js';

export interface TestApp {
  url: string;
  dir: string;
  app: FastifyInstance;
  deps: Deps;
  /** Every log line written so far. */
  logs: string[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** `port`: listen there (0 = any); with a fixed port, PUBLIC_URL defaults to that loopback origin. */
export async function startApp(env: Record<string, string> = {}, options: DepsOptions & { dir?: string; port?: number; httpTimeouts?: typeof HTTP_TIMEOUTS } = {}): Promise<TestApp> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'portico-test-')));
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const port = options.port ?? 0;
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`,
    LOG_LEVEL: 'info',
    ...(port ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    ...env,
  });
  const deps = await buildDeps(config, { outboxDir: join(dir, 'outbox'), logDestination, humanCheckTimeoutMs: 300, ...options });
  const app = await buildApp(deps, options.httpTimeouts);
  const contract = checkResponsesAgainstDocument(app);
  await app.listen({ port, host: '127.0.0.1' });
  await contract.load();
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    dir,
    app,
    deps,
    logs,
    post: (path, body, headers = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await app.close();
      await deps.close();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A valid inquiry; override any field. */
export const inquiry = (fields: Record<string, unknown> = {}) => ({
  name: 'Ana García',
  email: 'ana@example.com',
  message: 'We manage 40 buildings and would like a demo.',
  privacy: true,
  ...fields,
});

/** A free loopback port, for apps whose PUBLIC_URL must equal their real origin (strict OAuth clients). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A loopback port where nothing listens and no other test's server will land: below the range the
 * kernel hands out for port 0 (32768-60999 on Linux), which every test server binds. A relay that is
 * "down" on it stays refused until this test starts one there; a port from freePort() could be taken
 * in between by a file running in parallel.
 */
export async function idlePort(): Promise<number> {
  const { createServer } = await import('node:net');
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Registers a confidential client and returns the Authorization header of a client-credentials token for `scope`. */
export async function bearerFor(api: TestApp, scope: string): Promise<{ authorization: string }> {
  const registered = await (await api.post('/oauth/register', { client_name: 'CRM', grant_types: ['client_credentials'] })).json();
  const token = await fetch(`${api.url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  return { authorization: `Bearer ${(await token.json()).access_token}` };
}
