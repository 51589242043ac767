// `portico serve` as a real child process on a free loopback port, for crash and shutdown tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './app.js';
import { unwatchResponses, watchResponses } from './openapi-contract.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** stdout and stderr so far, for failure messages. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `portico serve` (dist/, which `npm test` builds first) with only PATH and `env`, and waits until /healthz
 * answers 200 (within `withinMs`, 10 s by default). `command`: another way of starting it (the bin itself, as a supervisor
 * runs it, or another release's).
 */
export async function startServe(env: Record<string, string>, options: { port?: number; cwd?: string; command?: [string, ...string[]]; withinMs?: number } = {}): Promise<ServeProcess> {
  const port = options.port ?? (await freePort());
  const [program, ...args] = options.command ?? [process.execPath, `${ROOT}dist/cli.js`, 'serve'];
  const child = spawn(program, args, {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const server = { url: `http://127.0.0.1:${port}`, child, output: () => output, exited };

  const deadline = Date.now() + (options.withinMs ?? 10_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`portico serve exited before listening:\n${output}`);
    const status = await fetch(`${server.url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) {
      // Its responses are checked against the OpenAPI document it serves, as in-process apps' are.
      await watchResponses(server.url);
      child.once('exit', () => unwatchResponses(server.url));
      return server;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`portico serve did not answer /healthz within ${(options.withinMs ?? 10_000) / 1000} s:\n${output}`);
}
