// smtpMailer (nodemailer's pool with Portico's settings and deadline) against real SMTP servers on
// loopback: what arrives, refusals told apart (RFC 5321 section 4.2.1), relays that cap connections,
// drop them, misbehave or stall, and verify and close.
import { simpleParser } from 'mailparser';
import type { SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { SMTP_SEND_DEADLINE_MS } from '../../src/adapters/mail/smtp-mailer.js';
import { MailDeliveryError, type Mailer } from '../../src/ports/mailer.js';
import { freePort } from '../support/app.js';
import { mailMessage as message } from '../support/mail-message.js';
import { mailerFromSettings } from '../support/smtp-mailer.js';
import { startTricklingSmtpServer } from '../support/smtp-server.js';
import { startRawServer, startRealSmtpServer, startScriptedSmtpServer } from '../support/smtp-tls.js';

const since = (started: number) => Date.now() - started;
const plain = { disabledCommands: ['STARTTLS'] } satisfies SMTPServerOptions;
const subjectOf = (raw: string) => /^Subject: (.*)\r?$/m.exec(raw)?.[1];
const subjects = (n: number, prefix = 'load') => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

// Every server and mailer a test starts, closed after it (mailers first).
const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
const mailerFor = (url: string, env: Record<string, string> = {}): Mailer => track(mailerFromSettings(url, env));
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

describe('smtpMailer delivering', () => {
  it('delivers the message with its own Message-ID and Date, the submitter as Reply-To and our header', async () => {
    const server = track(await startRealSmtpServer(plain));
    const mail = message();
    await mailerFor(server.url).send(mail);
    const parsed = await simpleParser(server.raw[0]!);
    expect(parsed.messageId).toBe(mail.messageId);
    expect(parsed.date?.toISOString()).toBe('2026-11-25T10:00:00.000Z');
    expect(parsed.replyTo?.value).toEqual([{ name: 'Ana García', address: 'ana@example.com' }]);
    expect(parsed.subject).toBe('New inquiry from Ana García [es]');
    expect(parsed.headers.get('x-portico-inquiry-id')).toBe(mail.headers['X-Portico-Inquiry-Id']);
    expect(parsed.text).toBe('We manage 40 buildings.\nCould we see a demo?\n');
    expect(server.sessions[0]?.envelope).toMatchObject({ mailFrom: { address: 'web@portico.example' }, rcptTo: [{ address: 'team@portico.example' }] });
  });

  it('dot-stuffs lines that start with a period, so the text arrives intact (RFC 5321 section 4.5.2)', async () => {
    const server = track(await startRealSmtpServer(plain));
    const text = '.starts with a period\n.\n..\nin the middle . of a line\n. period and space\n.\n\n.';
    await mailerFor(server.url).send(message({ text }));
    expect((await simpleParser(server.raw[0]!)).text).toBe(`${text}\n`);
  });

  it('greets as SMTP_EHLO_NAME says (RFC 5321 section 4.1.1.1)', async () => {
    const server = track(await startRealSmtpServer(plain));
    await mailerFor(server.url, { SMTP_EHLO_NAME: 'mail-out.portico.example' }).send(message());
    expect(server.sessions[0]?.hostNameAppearsAs).toBe('mail-out.portico.example');
  });

  it('opens no more than SMTP_MAX_CONNECTIONS connections for a burst, and every message arrives once', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 20 }));
    const sent = subjects(20);
    const mailer = mailerFor(server.url, { SMTP_MAX_CONNECTIONS: '3' });
    await Promise.all(sent.map((subject) => mailer.send(message({ subject }))));
    expect(server.messages.map(subjectOf).sort()).toEqual([...sent].sort());
    expect(server.sessions.length).toBeLessThanOrEqual(3);
  });

  it('replaces a connection after SMTP_MAX_MESSAGES messages', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'] }));
    const mailer = mailerFor(server.url, { SMTP_MAX_CONNECTIONS: '1', SMTP_MAX_MESSAGES: '2' });
    for (const subject of subjects(5)) await mailer.send(message({ subject }));
    expect(server.sessions.map((s) => s.received)).toEqual([2, 2, 1]);
  });

  it('delivers a burst of 20 to a relay that takes 3 connections and greets the fourth with 421, none lost and none twice', async () => {
    const server = track(await startRealSmtpServer({ ...plain, maxClients: 3 }));
    const mailer = mailerFor(server.url, { SMTP_MAX_CONNECTIONS: '5' });
    const sent = subjects(20, 'capped');
    const outcomes = await Promise.allSettled(sent.map((subject) => mailer.send(message({ subject }))));
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    expect(server.raw.map(subjectOf).sort()).toEqual([...sent].sort());
  });

  it('delivers a burst to a capped relay that takes 2.5 s over each message, the connections over the cap waiting for the first', async () => {
    const slowly = (_address: unknown, _session: unknown, callback: (error?: Error) => void) => void setTimeout(callback, 2_500);
    const server = track(await startRealSmtpServer({ ...plain, maxClients: 3, onMailFrom: slowly }));
    const mailer = mailerFor(server.url, { SMTP_MAX_CONNECTIONS: '5' });
    const sent = subjects(6, 'slow');
    const outcomes = await Promise.allSettled(sent.map((subject) => mailer.send(message({ subject }))));
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    expect(server.raw.map(subjectOf).sort()).toEqual([...sent].sort());
  }, 20_000);
});

describe('smtpMailer when the server refuses a message', () => {
  const refuse = (responseCode: number, text: string) => Object.assign(new Error(text), { responseCode });
  const options = {
    ...plain,
    onMailFrom: (address, _session, callback) => callback(address.address.startsWith('tempfail@') ? refuse(451, '4.7.1 try again later') : null),
    onRcptTo: (address, _session, callback) => callback(address.address.startsWith('nobody@') ? refuse(550, '5.1.1 no such mailbox') : null),
  } satisfies SMTPServerOptions;

  it.each([
    ['550 at RCPT', '550', true, message({ to: { name: 'Nobody', address: 'nobody@portico.example' } })],
    ['451 at MAIL FROM', '451', false, message({ from: { name: 'Portico', address: 'tempfail@portico.example' } })],
    ['554 after the data', '554', true, message({ subject: 'spam' })],
  ])('fails on a %s with the code, permanent only for a 5xx, then delivers the next message', async (_, code, permanent, refused) => {
    const server = track(await startRealSmtpServer(options, { refuseData: (raw) => (/^Subject: spam\r$/m.test(raw) ? refuse(554, '5.7.1 looks like spam') : undefined) }));
    const mailer = mailerFor(server.url);
    const error = await mailer.send(refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toContain(code);
    expect((error as MailDeliveryError).permanent).toBe(permanent);
    expect(server.raw).toEqual([]);
    await mailer.send(message({ subject: 'the next one' }));
    expect(server.raw.map(subjectOf)).toEqual(['the next one']);
  });
});

describe('smtpMailer when the server drops a connection', () => {
  it('sends on a new connection after the server closed the kept one while it was idle', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onMessage: (session) => (void session.reply('250 queued\r\n').then(() => session.socket.end()), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    await server.sessions[0]?.closed;
    await mailer.send(message());
    expect(server.sessions.map((s) => s.received)).toEqual([1, 1]);
  });

  it('never sends a message twice: one whose connection died after its data went fails, and is not sent again', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onMessage: (session) => session.received > 1 && (session.socket.destroy(), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    const error = await mailer.send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as MailDeliveryError).permanent).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.sessions).toHaveLength(1);
    expect(server.messages).toHaveLength(2);
  });

  it('sends on a new connection after the server was restarted on the same port', async () => {
    const port = await freePort();
    const first = track(await startRealSmtpServer(plain, { port }));
    const mailer = mailerFor(first.url);
    await mailer.send(message());
    await first.close();
    const second = track(await startRealSmtpServer(plain, { port }));
    await mailer.send(message());
    expect([first.raw.length, second.raw.length]).toEqual([1, 1]);
  });

  it('fails at once where nothing listens', async () => {
    const started = Date.now();
    const error = await mailerFor(`smtp://127.0.0.1:${await freePort()}`)
      .send(message())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect(since(started)).toBeLessThan(1_000);
  });

  it('fails every message of a burst at once where nothing listens, none waiting on another', async () => {
    const mailer = mailerFor(`smtp://127.0.0.1:${await freePort()}`, { SMTP_MAX_CONNECTIONS: '3' });
    const started = Date.now();
    const outcomes = await Promise.allSettled(subjects(10, 'refused').map((subject) => mailer.send(message({ subject }))));
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('rejected'));
    expect(since(started)).toBeLessThan(2_000);
  });
});

describe('smtpMailer against broken, wedged or hostile servers', () => {
  it.each([
    ['answers as an HTTP server', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'],
    ['greets with 554', '554 no service here\r\n'],
  ])('fails at once when the server %s', async (_, greeting) => {
    const server = track(await startRawServer((socket) => socket.write(greeting)));
    const started = Date.now();
    const error = await mailerFor(server.url)
      .send(message())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect(since(started)).toBeLessThan(1_000);
  });

  it('gives up on a server that never greets after the 5 s greeting timeout', async () => {
    const server = track(await startRawServer(() => {}));
    const started = Date.now();
    const error = await mailerFor(server.url)
      .send(message())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/ETIMEDOUT/);
    expect(since(started)).toBeGreaterThanOrEqual(4_900);
    expect(since(started)).toBeLessThan(6_500);
  }, 15_000);

  it('gives up within the send deadline on a server that trickles its replies a byte at a time, and delivers nothing', async () => {
    const server = track(await startTricklingSmtpServer(400));
    const started = Date.now();
    const error = await mailerFor(server.url)
      .send(message())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/ETIMEDOUT not sent within 14 s/);
    expect(since(started)).toBeGreaterThanOrEqual(SMTP_SEND_DEADLINE_MS - 100);
    expect(since(started)).toBeLessThan(SMTP_SEND_DEADLINE_MS + 1_000);
  }, 20_000);

  it('never hands over a message whose signal aborted while it waited for a connection', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 300 }));
    const mailer = mailerFor(server.url, { SMTP_MAX_CONNECTIONS: '1' });
    const first = mailer.send(message({ subject: 'first' }));
    const waiting = mailer.send(message({ subject: 'waiting' }), AbortSignal.timeout(100));
    await expect(waiting).rejects.toThrow(/EABORT/);
    await first;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.messages.map(subjectOf)).toEqual(['first']);
  });
});

describe('smtpMailer verify and close', () => {
  it('verifies a working server and fails to verify where nothing listens, naming why', async () => {
    const server = track(await startRealSmtpServer(plain));
    await mailerFor(server.url).verify();
    await expect(mailerFor(`smtp://127.0.0.1:${await freePort()}`).verify()).rejects.toThrow(/ECONNREFUSED/);
  });

  it('ends each idle kept connection when closed, and the server sees them end', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 50 }));
    const mailer = mailerFromSettings(server.url);
    await Promise.all([mailer.send(message()), mailer.send(message())]);
    expect(server.sessions).toHaveLength(2);
    const closedAt = Date.now();
    await mailer.close();
    await Promise.all(server.sessions.map((s) => s.closed));
    expect(since(closedAt)).toBeLessThan(1_000);
  });

  it('ends at close a send still in transit, which then fails instead of delivering after its request was answered', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 2_000 }));
    const mailer = mailerFromSettings(server.url);
    const sending = mailer.send(message()).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await mailer.close();
    expect(await sending).toBeInstanceOf(MailDeliveryError);
    await server.sessions[0]!.closed;
  });
});
