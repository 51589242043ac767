// compose.scale.yaml as an operator runs it: two nodes on PostgreSQL and Redis behind nginx, which
// terminates TLS with the operator's certificate (here a self-signed one), in production mode and
// delivering to a real SMTP server that the containers reach on this machine's own address.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { compose, composeCommand, httpsFetch, waitFor } from './docker.js';

const images = inject('images');
const composer = composeCommand();
if (!images || !composer) console.warn('SKIPPED test/container/compose-scale.test.ts: no Docker engine or Compose. Install docker.io and docker-compose and start dockerd (as .ci/run does).');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const name = `portico-scale-${randomBytes(4).toString('hex')}`;
const HTTPS_PORT = 39_900 + Math.floor(Math.random() * 90);
const origin = `https://localhost:${HTTPS_PORT}`;
// The machine's own (non-loopback) address, which containers on a bridge network reach.
const hostAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal && !address.address.startsWith('172.'))?.address;

describe.skipIf(!images || !composer || !hostAddress)('compose.scale.yaml', () => {
  const project = mkdtempSync(join(tmpdir(), 'portico-scale-'));
  const env = {
    ...process.env,
    PORTICO_IMAGE: images?.portico,
    POSTGRES_IMAGE: images?.postgres,
    REDIS_IMAGE: images?.redis,
    NGINX_IMAGE: images?.nginx,
    HTTPS_PORT: String(HTTPS_PORT),
  };
  const run = (...args: string[]) => compose(composer!, ['-p', name, '-f', 'compose.scale.yaml', ...args], { cwd: project, env });
  const logs = (service: string) => run('logs', '--no-color', service);
  let smtp: TestSmtpServer;
  let ca: string;
  const get = (path: string) => httpsFetch(`${origin}${path}`, ca);
  const sendInquiry = (who: string) =>
    httpsFetch(`${origin}/api/contact`, ca, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: who, email: 'ana@example.com', message: `We manage 40 buildings. ${who}`, privacy: true }),
    });

  beforeAll(async () => {
    smtp = await startSmtpServer('accept', 0, hostAddress);
    copyFileSync(join(ROOT, 'compose.scale.yaml'), join(project, 'compose.scale.yaml'));
    mkdirSync(join(project, 'deploy/nginx'), { recursive: true });
    for (const file of ['compose.conf', 'portico-proxy.conf']) copyFileSync(join(ROOT, 'deploy/nginx', file), join(project, 'deploy/nginx', file));
    mkdirSync(join(project, 'certs'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(project, 'certs/privkey.pem'),
        '-out',
        join(project, 'certs/fullchain.pem'),
      ],
      { stdio: 'ignore' },
    );
    execFileSync('chmod', ['644', join(project, 'certs/privkey.pem')]);
    ca = readFileSync(join(project, 'certs/fullchain.pem'), 'utf8');
    copyFileSync(join(ROOT, '.env.example'), join(project, '.env'));
    writeFileSync(
      join(project, '.env'),
      [
        '',
        'APP_ENV=production',
        `PUBLIC_URL=${origin}`,
        `POSTGRES_PASSWORD=${randomBytes(12).toString('hex')}`,
        `SMTP_URL=${smtp.url}`,
        'MAIL_FROM=Portico <portico@example.com>',
        'MAIL_TO=Sales <sales@example.com>',
        '',
      ].join('\n'),
      { flag: 'a' },
    );

    run('up', '-d', '--no-build');
    await waitFor(
      '/readyz through nginx',
      () =>
        get('/readyz').then(
          (r) => (r.status === 200 ? r : undefined),
          () => undefined,
        ),
      120_000,
    );
  });

  afterAll(async () => {
    try {
      run('down', '-v');
    } finally {
      await smtp?.close();
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('serves through nginx over TLS from both nodes, each on PostgreSQL and Redis in production', async () => {
    for (let i = 0; i < 12; i++) expect((await get('/healthz')).status).toBe(200);
    for (const node of ['portico-1', 'portico-2']) {
      // A node writes its lines at least once a second; each request's line names the route.
      await vi.waitFor(() => expect(logs(node)).toContain('"route":"/healthz"'), { timeout: 10_000, interval: 500 });
      const lines = logs(node);
      expect(lines).toContain('"env":"production"');
      expect(lines).toContain('"database":"postgres"');
    }
  });

  it('delivers an inquiry sent through nginx to the relay, and either node lists it', async () => {
    const answer = await sendInquiry('Scale Visitor');
    expect(answer.status).toBe(200);
    await waitFor('the message at the relay', () => smtp.messages.find((message) => message.text?.includes('Scale Visitor')));
    for (const node of ['portico-1', 'portico-2']) {
      expect(run('exec', '-T', node, 'portico', 'inquiries', 'list', '--json')).toContain('"name":"Scale Visitor"');
    }
  });

  it('counts the per-address contact limit once across both nodes (Redis), as nginx saw the address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await sendInquiry(`Visitor ${i}`)).status);
    // Eight an hour per address (the default), one of them already spent by the test above.
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.slice(7)).toEqual([429, 429, 429]);
  });

  it('stops both nodes within their grace, exit code 0', () => {
    const started = Date.now();
    run('stop', 'portico-1', 'portico-2');
    expect(Date.now() - started).toBeLessThan(12_000);
    const states = run('ps', 'portico-1', 'portico-2');
    expect(states.match(/Exit 0/g) ?? states.match(/Exited \(0\)/g)).toHaveLength(2);
  });
});
