// SIGTERM: `portico serve` stops taking connections, finishes the inquiry it is sending, and exits 0 within 10 s.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

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
});
