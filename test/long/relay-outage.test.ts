// A relay down for a minute, against a running `portico serve` (D15): every inquiry received meanwhile
// answers 502, and is delivered once after the relay returns, by the node's own retries, with no one
// calling resend. Real time throughout: part of `npm run test:long`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idlePort, inquiry } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('a relay down for a minute', () => {
  let dir: string;
  let node: ServeProcess;
  let smtp: TestSmtpServer | undefined;
  let smtpPort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-outage-'));
    smtpPort = await idlePort();
    node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
  });
  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await smtp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gets every inquiry received during the outage delivered once after the relay returns, with no one calling resend', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await fetch(`${node.url}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(inquiry({ name: `Visitor ${i}`, email: `v${i}@example.com` })),
      });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error_description: string }).error_description).toContain('retried automatically for up to 24 hours');
    }
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    smtp = await startSmtpServer('accept', smtpPort);
    const started = Date.now();
    await expect.poll(() => smtp!.accepted.length, { timeout: 150_000, interval: 1_000 }).toBe(12);
    // Retries back off to 30-60 s by the end of a minute's outage: all are in within two minutes of the return.
    expect(Date.now() - started).toBeLessThan(120_000);
    for (const message of smtp.accepted) ids.push(String(message.headers.get('x-portico-inquiry-id')));
    expect(new Set(ids).size).toBe(12);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(smtp.accepted).toHaveLength(12);
  }, 300_000);
});
