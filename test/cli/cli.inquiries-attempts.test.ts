// Every try of every channel at an inquiry, on file: `portico inquiries show` lists them, as text and as
// JSON, with what the relay said; purge and erase take them with their inquiry.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { deliverWaiting } from '../../src/modules/contact/redeliver.js';
import type { DeliveryAttempt } from '../../src/ports/inquiry-store.js';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

describe('portico inquiries show, for a delivery that failed twice and then went through', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  let id: string;
  let old: string;
  let now = Date.parse('2026-11-29T10:00:00Z');
  beforeAll(async () => {
    space = await workspace();
    smtp = await startSmtpServer('reject-mail');
    const api: TestApp = await startApp({ ...space.env, SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { dir: space.dir, clock: { now: () => now } });
    try {
      // One of a year and a half ago, delivered at its first try, for purge to find.
      smtp.mode = 'accept';
      now = Date.parse('2025-05-29T10:00:00Z');
      expect((await api.post('/api/contact', inquiry({ message: 'Long ago.' }))).status).toBe(200);
      old = (await api.deps.inquiries.list({ limit: 1 }))[0]!.id;
      smtp.mode = 'reject-mail';
      now = Date.parse('2026-11-29T10:00:00Z');
      expect((await api.post('/api/contact', inquiry({ message: 'Tried three times.' }))).status).toBe(502);
      id = (await api.deps.inquiries.list({ limit: 1 }))[0]!.id;
      const retry = async () => {
        now = (await api.deps.inquiries.get(id))!.nextAttemptAt!;
        await deliverWaiting(contactDeps(api.deps));
      };
      await retry();
      smtp.mode = 'accept';
      await retry();
      expect((await api.deps.inquiries.get(id))!.status).toBe('sent');
    } finally {
      await api.close();
    }
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('lists each of the three tries, oldest first, with the relay reply and the error of each that failed', async () => {
    const { code, stdout } = await space.cli('inquiries', 'show', id);
    expect(code).toBe(0);
    const at = lines(stdout).findIndex((line) => line.startsWith('ATTEMPT'));
    expect(lines(stdout)[at]).toMatch(/^ATTEMPT +CHANNEL +TOOK +RESULT +ERROR$/);
    const rows = lines(stdout)
      .slice(at + 1, at + 4)
      .map((line) => line.trim().split(/ {2,}/));
    expect(rows).toEqual([
      [expect.stringMatching(/^2026-11-29T10:00:00\.000Z$/), 'mail', '0.000 s', expect.stringMatching(/^451 /), expect.stringMatching(/^EENVELOPE 451 /)],
      [expect.stringMatching(/^2026-11-29T10:00:/), 'mail', '0.000 s', expect.stringMatching(/^451 /), expect.stringMatching(/^EENVELOPE 451 /)],
      [expect.stringMatching(/^2026-11-29T10:0\d:/), 'mail', '0.000 s', expect.stringMatching(/^250 /), '-'],
    ]);
    expect(lines(stdout).slice(at + 4)).toEqual(['Tried three times.']);
  });

  it('gives them as JSON, with the inquiry', async () => {
    const { code, stdout } = await space.cli('inquiries', 'show', id, '--format', 'json');
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as { id: string; attempts: DeliveryAttempt[] };
    expect(shown.id).toBe(id);
    expect(shown.attempts.map((a) => [a.channel, a.ok, a.result?.slice(0, 3), a.error === null])).toEqual([
      ['mail', false, '451', false],
      ['mail', false, '451', false],
      ['mail', true, '250', true],
    ]);
    expect(shown.attempts[1]!.startedAt).toBeGreaterThan(shown.attempts[0]!.startedAt);
  });

  it('leaves no attempt behind once purge, then erase, have taken their inquiries', async () => {
    const attemptsOf = (inquiry: string) => {
      const sqlite = new Database(join(space.dir, 'p.sqlite'), { readonly: true });
      try {
        return sqlite.prepare('select count(*) from delivery_attempts where inquiry_id = ?').pluck().get(inquiry);
      } finally {
        sqlite.close();
      }
    };
    expect([attemptsOf(old), attemptsOf(id)]).toEqual([1, 3]);
    expect((await space.cli('inquiries', 'purge', '--older-than', '365')).stdout).toMatch(/^purged 1 inquiry older than 365 days/);
    expect([attemptsOf(old), attemptsOf(id)]).toEqual([0, 3]);
    expect((await space.cli('inquiries', 'erase', '--id', id)).code).toBe(0);
    expect(attemptsOf(id)).toBe(0);
  });
});
