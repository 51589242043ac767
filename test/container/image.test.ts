// Portico's image (Dockerfile) and compose.yaml, run in a Docker engine as an operator runs them:
// published on loopback, data in a volume, stopped by `docker stop`.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compose, composeCommand, docker, dockerStatus, health, waitFor } from './docker.js';

const images = inject('images');
const composer = composeCommand();
if (!images) console.warn('SKIPPED test/container/image.test.ts: no Docker engine answers. Install docker.io and start `dockerd --bridge=none --iptables=false` (as .ci/run does).');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const name = `portico-test-${randomBytes(4).toString('hex')}`;
const PORT = 39_400 + Math.floor(Math.random() * 500);

// The engine's proxy takes the connection before node listens: each try has its own deadline.
const readyz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => (r.status === 200 ? r : undefined),
    () => undefined,
  );

async function sendInquiry(port: number, who: string) {
  const answer = await fetch(`http://127.0.0.1:${port}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: who, email: 'ana@example.com', message: `We manage 40 buildings. ${who}`, privacy: true }),
  });
  expect(answer.status).toBe(200);
}

/** The names of the inquiries in the volume, read by the image's own CLI (NDJSON) in a container of its own. */
const storedNames = (volume: string, database = 'sqlite:./data/portico.sqlite') =>
  docker(['run', '--rm', '-v', `${volume}:/data`, '-e', `DATABASE_URL=${database}`, images!.portico, 'inquiries', 'list', '--json'])
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { name: string }).name)
    .sort();

describe.skipIf(!images)('the image, with docker run', () => {
  const network = `${name}-net`;
  const volume = `${name}-data`;
  const run = (container: string) => docker(['run', '-d', '--init', '--name', container, '--network', network, '-p', `127.0.0.1:${PORT}:3000`, '-v', `${volume}:/data`, images!.portico]);

  beforeAll(() => {
    // A network of its own: the engine runs without its default bridge (--bridge=none).
    docker(['network', 'create', network]);
  });
  afterAll(() => {
    dockerStatus(['rm', '-f', `${name}-a`, `${name}-b`]);
    dockerStatus(['volume', 'rm', volume]);
    dockerStatus(['network', 'rm', network]);
  });

  it('serves on Node.js 24 LTS as an unprivileged user with its V8 flags, answers /readyz and turns healthy', async () => {
    run(`${name}-a`);
    await waitFor('/readyz', () => readyz(PORT));
    expect(docker(['exec', `${name}-a`, 'node', '--version']).trim()).toMatch(/^v24\./);
    expect(docker(['exec', `${name}-a`, 'id', '-u']).trim()).toBe('1000');
    const processes = docker(['top', `${name}-a`, '-o', 'pid,args']);
    expect(processes).toMatch(/node --heap-growing-percent=25 --v8-pool-size=1 .* serve/);
    expect(await waitFor('the health check', () => (health(`${name}-a`) === 'healthy' ? 'healthy' : undefined), 40_000)).toBe('healthy');
  });

  it('keeps its database and outbox in the /data volume for the next container', async () => {
    await sendInquiry(PORT, 'Before Restart');
    docker(['rm', '-f', `${name}-a`]);
    run(`${name}-b`);
    await waitFor('/readyz', () => readyz(PORT));
    await sendInquiry(PORT, 'After Restart');
    expect(storedNames(volume)).toEqual(['After Restart', 'Before Restart']);
    const outbox = docker(['run', '--rm', '-v', `${volume}:/data`, '--entrypoint', 'find', images!.portico, '/data/outbox', '-name', '*.eml']);
    expect(
      outbox
        .trim()
        .split('\n')
        .filter((file) => file.endsWith('.eml')),
    ).toHaveLength(2);
  });

  it('backs up its SQLite file while serving, with the command docs/deploy.md gives', () => {
    docker(['exec', `${name}-b`, 'node', '-e', "new (require('better-sqlite3'))('data/portico.sqlite').backup('data/backup.sqlite')"]);
    expect(storedNames(volume, 'sqlite:/data/backup.sqlite')).toEqual(['After Restart', 'Before Restart']);
  });

  it('stops on docker stop within its grace, exit code 0, saying so', () => {
    const started = Date.now();
    docker(['stop', `${name}-b`]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(docker(['inspect', '--format', '{{.State.ExitCode}}', `${name}-b`]).trim()).toBe('0');
    expect(docker(['logs', `${name}-b`])).toContain('shutting down');
  });

  it('refuses a production start without its settings in one line per problem, exit code 1', () => {
    const { status, stderr } = dockerStatus(['run', '--rm', '-e', 'APP_ENV=production', images!.portico]);
    expect(status).toBe(1);
    expect(stderr).toContain('PUBLIC_URL');
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});

describe.skipIf(!images || !composer)('compose.yaml', () => {
  const project = mkdtempSync(join(tmpdir(), 'portico-compose-'));
  const env = { ...process.env, PORTICO_IMAGE: images?.portico, PORTICO_PORT: String(PORT + 1) };
  const run = (...args: string[]) => compose(composer!, ['-p', name, ...args], { cwd: project, env });

  beforeAll(() => {
    copyFileSync(join(ROOT, 'compose.yaml'), join(project, 'compose.yaml'));
    // The three commands of docs/deploy.md: an .env from the example, up, and /readyz.
    copyFileSync(join(ROOT, '.env.example'), join(project, '.env'));
    writeFileSync(join(project, '.env'), `\nPUBLIC_URL=http://localhost:${PORT + 1}\nHOST=127.0.0.1\n`, { flag: 'a' });
  });
  afterAll(() => {
    try {
      run('-f', 'compose.yaml', 'down', '-v');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('starts one node from the .env file, published on loopback, and keeps its inquiries across down and up', async () => {
    run('-f', 'compose.yaml', 'up', '-d', '--no-build');
    await waitFor('/readyz', () => readyz(PORT + 1));
    await sendInquiry(PORT + 1, 'Compose Visitor');

    const started = Date.now();
    run('-f', 'compose.yaml', 'stop');
    expect(Date.now() - started).toBeLessThan(12_000);
    run('-f', 'compose.yaml', 'down');
    run('-f', 'compose.yaml', 'up', '-d', '--no-build');
    await waitFor('/readyz', () => readyz(PORT + 1));
    expect(storedNames(`${name}_portico-data`)).toEqual(['Compose Visitor']);
  });
});
