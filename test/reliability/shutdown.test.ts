// SIGTERM: `portico serve` stops taking connections, finishes the inquiry it is sending, and exits 0 within 10 s;
// in a roll (D22) /readyz answers 503 at once while the node still serves for SHUTDOWN_DRAIN, and what reaches it
// once it closes gets Portico's own error body, never Fastify's.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { startRealSmtpServer } from '../support/smtp-tls.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let dir: string | undefined;
let smtp: TestSmtpServer | undefined;
let server: ServeProcess | undefined;

afterEach(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await smtp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = smtp = dir = undefined;
});

describe('portico serve on SIGTERM', () => {
  it('answers the in-flight inquiry after its slow e-mail is accepted, refuses new connections, and exits 0', { timeout: 20_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-shutdown-'));
    smtp = await startSmtpServer('slow');
    server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, RATE_LIMITS: 'off' });
    const url = server.url;

    const inFlight = fetch(`${url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Last Visitor', email: 'last@example.com', message: 'Sent while the server stops.', privacy: true }),
    });
    // Wait until the message is at the mail server (which takes 1.5 s to accept it), then stop.
    while (smtp.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('records an inquiry as sent when its client hangs up while the server stops, then exits 0', { timeout: 20_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-shutdown-'));
    smtp = await startSmtpServer('slow');
    server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, RATE_LIMITS: 'off' });
    // A raw socket, so hanging up closes the connection at once (fetch's abort left it open).
    const body = JSON.stringify({ name: 'Gone Visitor', email: 'gone@example.com', message: 'Sent, then the tab was closed.', privacy: true });
    const client = connect(Number(new URL(server.url).port), '127.0.0.1');
    client.on('error', () => {});
    client.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    // The message is at the mail server (which takes 1.5 s to accept it): the client leaves, the server stops.
    while (smtp.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    client.destroy();
    // Long enough for the server to see the connection close, well within the mail server's 1.5 s.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // It waited for the e-mail (1.5 s at most), not for the 9 s grace period.
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    // Recorded as sent: left pending, the next start would e-mail it a second time after 60 s.
    const db = new Database(join(dir, 'p.sqlite'), { readonly: true });
    try {
      expect(db.prepare('select name, status from inquiries').all()).toEqual([{ name: 'Gone Visitor', status: 'sent' }]);
    } finally {
      db.close();
    }
  });

  it('answers 502 to an inquiry held by a stuck relay, gives its e-mail up, keeps it for the retry job, says so, and exits 0 within 10 s', { timeout: 20_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-shutdown-'));
    smtp = await startSmtpServer('hang');
    server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, RATE_LIMITS: 'off' });
    const inFlight = fetch(`${server.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stuck Visitor', email: 'stuck@example.com', message: 'Sent while the relay hangs.', privacy: true }),
    });
    // The message is at the relay, which never answers.
    while (smtp.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(502);
    expect((await answer.json()).error_description).toMatch(/retried automatically/);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(server.output()).toMatch(/deliveries still waiting are given up/);
    const db = new Database(join(dir, 'p.sqlite'), { readonly: true });
    try {
      const [row] = db.prepare('select status, next_attempt_at as next, last_error as error from inquiries').all() as { status: string; next: number | null; error: string }[];
      expect(row).toMatchObject({ status: 'failed', error: expect.stringContaining('process stopped') });
      expect(row!.next).toEqual(expect.any(Number));
    } finally {
      db.close();
    }
  });

  it('waits for an acknowledgement still on its way to the relay after the inquiry was answered, then exits 0', { timeout: 20_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-shutdown-'));
    // The team's message is taken at once; the note to the sender waits 2.5 s at RCPT TO.
    const relay = await startRealSmtpServer({
      disabledCommands: ['STARTTLS'],
      onRcptTo: (address, _session, callback) => void setTimeout(callback, address.address === 'sender@example.com' ? 2_500 : 0),
    });
    try {
      server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: relay.url, MAIL_ACKNOWLEDGE: 'on', MAIL_TO: 'team@portico.example', RATE_LIMITS: 'off' });
      const { authorization } = await bearer(server.url);
      const answer = await fetch(`${server.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ name: 'Bearer Sender', email: 'sender@example.com', message: 'Answered before its acknowledgement went.', privacy: true }),
      });
      expect(answer.status).toBe(200);
      expect(relay.raw).toHaveLength(1);
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(relay.raw.map((raw) => /^To: (.*)\r$/m.exec(raw)?.[1])).toEqual(['team@portico.example', 'Bearer Sender <sender@example.com>']);
      expect(server.output()).not.toMatch(/acknowledgement (failed|not delivered)/);
    } finally {
      await relay.close();
    }
  });

  it('gives up a webhook call to an endpoint that never answers in the same way, within 10 s', { timeout: 20_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-shutdown-'));
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startWebhookReceiver(secret, 'hang');
    try {
      server = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret, RATE_LIMITS: 'off' });
      const inFlight = fetch(`${server.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Hooked Visitor', email: 'hooked@example.com', message: 'Sent while the endpoint hangs.', privacy: true }),
      });
      while (receiver.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const stoppedAt = Date.now();
      server.child.kill('SIGTERM');
      const answer = await inFlight;
      expect(answer.status).toBe(502);
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      const db = new Database(join(dir, 'p.sqlite'), { readonly: true });
      try {
        expect(db.prepare('select status, last_error as error from inquiries').get()).toEqual({ status: 'failed', error: 'webhook: not sent: the process stopped first' });
      } finally {
        db.close();
      }
    } finally {
      await receiver.close();
    }
  });
});

/** A client-credentials token for contact:write from a newly registered client. */
async function bearer(base: string): Promise<{ authorization: string }> {
  const client = (await (
    await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'CRM', grant_types: ['client_credentials'] }) })
  ).json()) as {
    client_id: string;
    client_secret: string;
  };
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }),
  });
  return { authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` };
}

async function serve(env: Record<string, string>): Promise<ServeProcess> {
  dir = await mkdtemp(join(tmpdir(), 'portico-drain-'));
  return startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, RATE_LIMITS: 'off', ...env });
}

describe('portico serve told to stop', () => {
  it('answers /readyz 503 shutting_down at once, serves everything else for SHUTDOWN_DRAIN with Connection: close, then exits 0', { timeout: 20_000 }, async () => {
    server = await serve({ SHUTDOWN_DRAIN: '2s' });
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');
    // The signal is taken within a few milliseconds; /readyz is asked until it says so.
    let ready = await fetch(`${server.url}/readyz`);
    while (ready.status === 200 && Date.now() - stoppedAt < 1_000) ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    expect(await ready.json()).toEqual({ error: 'shutting_down', error_description: 'this node is shutting down', ok: false });

    const metadata = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get('connection')).toBe('close');
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);

    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(2_000);
  });

  it('answers a request that reaches it while it closes with its own 503 shutting_down, Retry-After and Connection: close', { timeout: 20_000 }, async () => {
    smtp = await startSmtpServer('slow');
    server = await serve({ SMTP_URL: smtp.url });
    // An inquiry whose e-mail the relay takes 1.5 s to accept holds its connection open while the node closes;
    // a second request is sent on that connection once the node takes no new one.
    const body = JSON.stringify({ name: 'Last Visitor', email: 'last@example.com', message: 'Sent while the node stops.', privacy: true });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    while (smtp.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    while (
      await fetch(`${server.url}/healthz`).then(
        () => true,
        () => false,
      )
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write('GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await closed;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(second).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expect(JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'shutting_down',
      error_description: 'this node is shutting down; send the request again (another node takes it)',
      ok: false,
    });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
