// `portico inquiries resend ID [--force]` delivers a stored inquiry again, refusing sent ones (without --force) and spam.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { lines, seedInquiries, workspace, type Seeded, type Workspace } from './cli-harness.js';

describe('portico inquiries resend', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  let seeded: Seeded;

  /** The stored inquiry with `id`, as `inquiries list --json` prints it. */
  const stored = async (id: string) => {
    const { stdout } = await space.cli('inquiries', 'list', '--json', '--limit', '1000');
    return lines(stdout)
      .map((line) => JSON.parse(line))
      .find((inquiry) => inquiry.id === id);
  };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    space = await workspace({ SMTP_URL: smtp.url, MAIL_FROM: 'Portico <no-reply@portico.example>', MAIL_TO: 'Sales <sales@portico.example>' });
  });
  beforeEach(async () => {
    seeded = await seedInquiries(space, smtp);
  });
  afterEach(() => {
    smtp.mode = 'accept';
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('sends a failed inquiry: the mail server receives it and list shows it sent', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', seeded.failed);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(`inquiry ${seeded.failed} delivered to sales@portico.example\n`);
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail?.replyTo?.value[0]?.address).toBe('failed@example.com');
    expect(mail?.to).toMatchObject({ value: [{ address: 'sales@portico.example' }] });
    expect(mail?.text).toContain('We manage 40 buildings and would like a demo.');
    expect(await stored(seeded.failed)).toMatchObject({ status: 'sent', attempts: 2, lastError: null, messageId: mail?.messageId });
  });

  it('exits 1 and keeps a failed inquiry failed when the mail server still refuses it', async () => {
    smtp.mode = 'reject-rcpt';
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', seeded.failed);
    expect(code).toBe(1);
    expect(stdout).not.toContain('sent to');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^portico: inquiry ${seeded.failed} not delivered: .*550`));
    expect(smtp.messages).toHaveLength(0);
    expect(await stored(seeded.failed)).toMatchObject({ status: 'failed', attempts: 2 });
  });

  it('refuses to resend a sent inquiry without --force, sending nothing', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', seeded.sent);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual([`portico: inquiry ${seeded.sent} was already sent; add --force to send it again`]);
    expect(smtp.messages).toHaveLength(0);
    expect(await stored(seeded.sent)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('sends a sent inquiry again with --force', async () => {
    const { code, stdout } = await space.cli('inquiries', 'resend', seeded.sent, '--force');
    expect(code).toBe(0);
    expect(stdout).toBe(`inquiry ${seeded.sent} delivered to sales@portico.example\n`);
    expect(smtp.messages.map((mail) => mail.replyTo?.value[0]?.address)).toEqual(['sent@example.com']);
    expect(await stored(seeded.sent)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it.each([[[]], [['--force']]])('refuses to send spam (flags: %j), sending nothing', async (flags) => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', seeded.spam, ...flags);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(lines(stderr)).toEqual([`portico: inquiry ${seeded.spam} is kept as spam (honeypot); \`portico inquiries release ${seeded.spam}\` delivers it`]);
    expect(smtp.messages).toHaveLength(0);
    expect(await stored(seeded.spam)).toMatchObject({ status: 'spam', attempts: 0 });
  });

  it('exits 1 for an id that names no inquiry', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', '00000000-0000-4000-8000-000000000000');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual(['portico: no inquiry 00000000-0000-4000-8000-000000000000']);
  });

  it('exits 1 with its usage when no id is given', async () => {
    const { code, stderr } = await space.cli('inquiries', 'resend');
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual(['portico: usage: portico inquiries resend ID [--force] | resend --failed [--since DURATION]']);
  });
});

describe('portico inquiries resend --failed', () => {
  let space: Workspace;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    space = await workspace({ SMTP_URL: smtp.url, MAIL_FROM: 'Portico <no-reply@portico.example>', MAIL_TO: 'Sales <sales@portico.example>' });
  });
  afterAll(async () => {
    await smtp.close();
    await space.remove();
  });

  it('says which failed inquiries it could not send, and exits 1 while the mail server still refuses', async () => {
    const seeded = await seedInquiries(space, smtp);
    smtp.mode = 'reject-rcpt';
    const { code, stdout, stderr } = await space.cli('inquiries', 'resend', '--failed', '--since', '1h');
    smtp.mode = 'accept';
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`^failed  ${seeded.failed}: .+\\n$`));
    expect(stderr).toBe('portico: 0 of 1 failed inquiry delivered to sales@portico.example; 1 still failed\n');
  });

  it('sends every failed inquiry, and nothing sent or spam', async () => {
    const [first, second] = [await seedInquiries(space, smtp), await seedInquiries(space, smtp)];
    const { code, stdout } = await space.cli('inquiries', 'resend', '--failed');
    expect(code).toBe(0);
    // Three failed: the one the previous test left, and one from each seeding.
    expect(lines(stdout).slice(0, 2).sort()).toEqual([`sent    ${first.failed}`, `sent    ${second.failed}`].sort());
    expect(lines(stdout).at(-1)).toBe('3 of 3 failed inquiries delivered to sales@portico.example');
    expect(smtp.messages.map((m) => m.replyTo?.value[0]?.address)).toEqual(['failed@example.com', 'failed@example.com', 'failed@example.com']);
    const { stdout: left } = await space.cli('inquiries', 'list', '--status', 'failed');
    expect(left).toBe('no inquiries\n');
  });

  it.each([
    [['--failed', '--since', '5'], 'portico: --since must be a duration such as 30m, 24h or 7d (got "5")\n'],
    [['--failed', '--since', '99999999999d'], 'portico: --since must be at most 3650d (got "99999999999d")\n'],
    [['--failed', 'some-id'], 'portico: usage: portico inquiries resend --failed [--since DURATION] (no ID, no --force)\n'],
    [['some-id', '--since', '1h'], 'portico: --since goes with --failed\n'],
  ])('refuses %j with one line', async (args, message) => {
    const { code, stderr } = await space.cli('inquiries', 'resend', ...args);
    expect(code).toBe(1);
    expect(stderr).toBe(message);
  });
});
