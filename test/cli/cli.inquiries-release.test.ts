// `portico inquiries show` and `release` as the team runs them against the database a node wrote: what a
// refusal says, and a release whose delivery fails kept for `resend`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

describe('portico inquiries show and release', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    smtp = await startSmtpServer();
    space = await workspace({ SMTP_URL: smtp.url, SPAM_BLOCKED_TERMS: 'casino' });
    const api = await startApp({ ...space.env, RATE_LIMITS: 'off' }, { dir: space.dir });
    try {
      for (const [key, fields] of Object.entries({
        sent: { email: 'sent@example.com', message: 'A demo.\nFor 40 buildings.' },
        duplicate: { email: 'sent@example.com', message: 'a demo. for 40 buildings.' },
        held: { email: 'held@example.com', message: 'Casino offers' },
        failing: { email: 'failing@example.com', message: 'Casino night for the residents?' },
      })) {
        expect((await api.post('/api/contact', inquiry(fields))).status).toBe(200);
        ids[key] = (await api.deps.inquiries.list({ limit: 1 }))[0]!.id;
      }
    } finally {
      await api.close();
    }
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('shows one inquiry whole: its status, reasons, the inquiry it duplicates, and its message line by line', async () => {
    const { code, stdout } = await space.cli('inquiries', 'show', ids.duplicate!);
    expect(code).toBe(0);
    const shown = lines(stdout);
    expect(shown).toEqual(expect.arrayContaining([`id:           ${ids.duplicate}`, 'status:       duplicate', 'reasons:      -', `duplicate of: ${ids.sent}`, 'a demo. for 40 buildings.']));
    const json = await space.cli('inquiries', 'show', ids.held!, '--format', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ id: ids.held, status: 'spam', spamReasons: ['blocked-term'], duplicateOf: null, releasedAt: null });
  });

  it.each([
    ['no id', [], 'usage: portico inquiries release ID'],
    ['an id that names no inquiry', ['00000000-0000-4000-8000-000000000000'], 'no inquiry 00000000-0000-4000-8000-000000000000'],
  ])('exits 1 for %s', async (_, args, message) => {
    const { code, stderr } = await space.cli('inquiries', 'release', ...args);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([`portico: ${message}`]);
  });

  it('refuses to release an inquiry that is not spam, sending nothing', async () => {
    for (const status of ['sent', 'duplicate']) {
      const id = ids[status]!;
      const { code, stderr } = await space.cli('inquiries', 'release', id);
      expect(code).toBe(1);
      expect(lines(stderr)).toEqual([`portico: inquiry ${id} is not kept as spam (it is ${status}); nothing to release`]);
    }
    expect(smtp.messages).toEqual([]);
  });

  it('keeps a released inquiry whose e-mail is refused as failed, for resend, and says so', async () => {
    smtp.mode = 'reject-rcpt';
    const { code, stderr } = await space.cli('inquiries', 'release', ids.failing!);
    smtp.mode = 'accept';
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      expect.stringMatching(new RegExp(`^portico: inquiry ${ids.failing} released, but not delivered: .*550.*; \`portico inquiries resend ${ids.failing}\` tries again$`)),
    ]);
    const resent = await space.cli('inquiries', 'resend', ids.failing!);
    expect(resent.code, resent.stderr).toBe(0);
    expect(smtp.messages).toHaveLength(1);
    const shown = await space.cli('inquiries', 'show', ids.failing!, '--format', 'json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'sent', spamReasons: ['blocked-term'], releasedAt: expect.any(Number) });
  });
});
