// An SQLite database whose write lock another connection holds (a purge, an erasure, a backup): a write
// waits for a lock held briefly, and an e-mail that went out while it was taken is recorded once (D23).
// sqlite-locked-doors.test.ts holds it for 9 s from another process against every door.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer } from '../support/smtp-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a node whose SQLite write lock another process holds', () => {
  let api: TestApp;
  let other: Database.Database;
  beforeEach(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
    other = new Database(join(api.dir, 'portico.sqlite'));
  });
  afterEach(async () => {
    if (other.inTransaction) other.exec('rollback');
    other.close();
    await api.close();
  });

  const timed = async (request: () => Promise<Response>) => {
    const started = performance.now();
    const response = await request();
    return { response, ms: performance.now() - started, body: (await response.json()) as Record<string, unknown> };
  };

  it('lets a registration through once a lock held for a second is given back', async () => {
    other.exec('begin immediate');
    const registration = timed(() => api.post('/oauth/register', { client_name: 'Patient', grant_types: ['client_credentials'] }));
    await sleep(1_000);
    other.exec('commit');
    const registered = await registration;
    expect(registered.response.status).toBe(201);
    expect(registered.ms).toBeGreaterThanOrEqual(900);
  });

  it('records as sent an inquiry whose e-mail went out while the lock was taken, answers 200, and never sends it again', { timeout: 30_000 }, async () => {
    const smtp = await startSmtpServer('slow');
    const mailing = await startApp({ RATE_LIMITS: 'off', SMTP_URL: smtp.url }, { dir: api.dir });
    try {
      const sent = timed(() => mailing.post('/api/contact', { name: 'Ana', email: 'ana@example.com', message: 'Delivered during a purge.', privacy: true }));
      // The relay has the message and takes 1.5 s to accept it: the lock is taken meanwhile, for 7 s.
      while (smtp.messages.length === 0) await sleep(10);
      other.exec('begin immediate');
      await sleep(7_000);
      other.exec('commit');
      const answer = await sent;
      expect(answer.response.status).toBe(200);
      const [inquiry] = await mailing.deps.inquiries.list({ limit: 1 });
      expect(inquiry).toMatchObject({ status: 'sent', attempts: 1 });
      expect(inquiry!.messageId).toBe(smtp.messages[0]!.messageId);
      expect(await mailing.deps.inquiries.listStalled(Date.now() + 3_600_000, 10)).toEqual([]);
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });
});
