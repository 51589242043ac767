// Docker and Compose as the tests drive them: the CLI, synchronously, with its error output in the
// thrown error; and waits on what a container answers.
import { execFileSync, spawnSync } from 'node:child_process';
import { request } from 'node:https';

export interface Run {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function docker(args: string[], options: Run = {}): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options });
}

/** Exit status and both outputs, for commands expected to fail. */
export function dockerStatus(args: string[], options: Run = {}): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync('docker', args, { encoding: 'utf8', ...options });
  return { status, stdout, stderr };
}

/** Compose v2 (`docker compose`) where the plugin is installed, else Debian's docker-compose (v1). */
export function composeCommand(): string[] | undefined {
  if (spawnSync('docker', ['compose', 'version']).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version']).status === 0) return ['docker-compose'];
  return undefined;
}

export function compose(command: string[], args: string[], options: Run = {}): string {
  return execFileSync(command[0]!, [...command.slice(1), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

export function dockerAnswers(): boolean {
  return spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` returns a value other than undefined, or fails naming `what`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(250);
  }
}

export function health(container: string): string {
  return docker(['inspect', '--format', '{{if .State.Health}}{{.State.Health.Status}}{{end}}', container]).trim();
}

/** An HTTPS request that trusts `ca` (nginx's self-signed certificate); resolves status, headers and body. */
export function httpsFetch(url: string, ca: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, ca }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
