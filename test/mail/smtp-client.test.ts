// Portico's SMTP client (src/adapters/mail/smtp-client.ts) behind smtpMailer, against real servers on
// loopback: PIPELINING or not (RFC 2920), dot-stuffing, TLS (RFC 8314, RFC 3207), AUTH (RFC 4954),
// refusals, kept connections the server drops, and servers that are broken or hostile.
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeMime } from '../../src/adapters/mail/mime.js';
import { SMTP_CONNECTIONS, smtpMailer } from '../../src/adapters/mail/mailers.js';
import { MailDeliveryError, type Mailer, type MailMessage } from '../../src/ports/mailer.js';
import { freePort, inquiry } from '../support/app.js';
import { mailMessage } from '../support/mail-message.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { makeCertificate, OPENSSL, type Certificate, startRawServer, startRealSmtpServer, startScriptedSmtpServer, type RealSmtpServer, type ScriptedSession } from '../support/smtp-tls.js';

const message = mailMessage;

/** composeMime's bytes for `mail` with the Message-ID and Date the server received, ended by the CRLF before the final dot. */
function composedAsReceived(mail: MailMessage, received: string): string {
  const messageId = /^Message-ID: (.*)$/m.exec(received)?.[1] ?? '';
  const date = new Date(/^Date: (.*)$/m.exec(received)?.[1] ?? '');
  const { raw } = composeMime(mail, { messageId, date });
  return raw.endsWith('\r\n') ? raw : `${raw}\r\n`;
}

const since = (started: number) => Date.now() - started;
type Seen = { method?: string; username?: string; password?: string | null; secure?: boolean };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hasOpenssl = existsSync(OPENSSL);
if (!hasOpenssl) console.warn('SKIPPED the TLS tests of test/mail/smtp-client.test.ts: /usr/bin/openssl is missing.');

// Every server and mailer a test starts, closed after it (mailers first).
const opened: { close(): Promise<unknown> }[] = [];
const track = <T extends { close(): Promise<unknown> }>(thing: T): T => (opened.push(thing), thing);
const mailerFor = (url: string): Mailer => track(smtpMailer(url));
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

describe('smtpMailer on a plain connection', () => {
  it.each([
    ['offers PIPELINING', false],
    ['does not offer PIPELINING', true],
  ])('delivers exactly the bytes composeMime makes to a server that %s', async (_, hidePIPELINING) => {
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'], hidePIPELINING }));
    const mail = message();
    const { messageId } = await mailerFor(server.url).send(mail);
    expect(server.raw).toHaveLength(1);
    expect(server.raw[0]).toBe(composedAsReceived(mail, server.raw[0]!));
    expect(server.raw[0]).toContain(`Message-ID: ${messageId}\r\n`);
  });

  it('sends MAIL, RCPT and DATA without waiting when the server offers PIPELINING, and one at a time when it does not', async () => {
    const pipelining = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], replyDelayMs: 30 }));
    const lockstep = track(await startScriptedSmtpServer({ extensions: ['8BITMIME'], replyDelayMs: 30 }));
    await mailerFor(pipelining.url).send(message());
    await mailerFor(lockstep.url).send(message());
    // RFC 2920 section 3.1: the envelope goes as one group, DATA last; the message itself waits for 354.
    expect(pipelining.sessions[0]?.beforeTheirTurn).toEqual(['RCPT TO:<team@portico.example>', 'DATA']);
    expect(lockstep.sessions[0]?.beforeTheirTurn).toEqual([]);
    expect(lockstep.sessions[0]?.commands.slice(1)).toEqual(['MAIL FROM:<web@portico.example>', 'RCPT TO:<team@portico.example>', 'DATA']);
    expect([pipelining.messages.length, lockstep.messages.length]).toEqual([1, 1]);
  });

  it('reads a multi-line greeting and replies that arrive a few bytes at a time', async () => {
    const greeting = '220-scripted.example ESMTP\r\n220-no UCE\r\n220 ready\r\n';
    const server = track(await startScriptedSmtpServer({ greeting, extensions: ['SIZE 10240000', '8BITMIME', 'PIPELINING'], replyPieceBytes: 3, replyDelayMs: 30 }));
    await mailerFor(server.url).send(message());
    expect(server.messages).toHaveLength(1);
    // PIPELINING, on the last line of the EHLO reply, was read.
    expect(server.sessions[0]?.beforeTheirTurn).toEqual(['RCPT TO:<team@portico.example>', 'DATA']);
  });

  it('dot-stuffs lines that start with a period, so the text arrives intact (RFC 5321 section 4.5.2)', async () => {
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }));
    const text = '.starts with a period\n.\n..\nin the middle . of a line\n. period and space\n.\n\n.';
    const mail = message({ text });
    await mailerFor(server.url).send(mail);
    expect(server.raw[0]).toBe(composedAsReceived(mail, server.raw[0]!));
    // The last line gets the line end that the final "." needs (RFC 5321 section 4.1.1.4).
    expect((await simpleParser(server.raw[0]!)).text).toBe(`${text}\n`);
  });
});

describe('smtpMailer with AUTH, credentials from the URL (RFC 4954)', () => {
  const user = 'ana@portico.example';
  const pass = 'p@ss:w%rd/ü 50%';
  const urlWith = (server: RealSmtpServer, credentials: string) => server.url.replace('smtp://', `smtp://${credentials}@`);
  const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(pass)}`;

  /** smtp-server offering `methods` in the clear (allowInsecureAuth), refusing mail from anyone not signed in. */
  const startAuthServer = async (methods: string[], seen: Seen[]) =>
    track(
      await startRealSmtpServer({
        disabledCommands: ['STARTTLS'],
        authOptional: false,
        allowInsecureAuth: true,
        authMethods: methods,
        onAuth({ method, username, password }, _session, callback) {
          seen.push({ method, username, password });
          if (username === user && password === pass) callback(null, { user });
          else callback(Object.assign(new Error('5.7.8 invalid credentials'), { responseCode: 535 }));
        },
      }),
    );

  it.each(['PLAIN', 'LOGIN'])('signs in with AUTH %s as the exact user and password the URL percent-encodes', async (method) => {
    const seen: Seen[] = [];
    const server = await startAuthServer([method], seen);
    await mailerFor(urlWith(server, credentials)).send(message());
    expect(seen).toEqual([{ method, username: user, password: pass }]);
    expect(server.raw).toHaveLength(1);
  });

  it('fails with an authentication error and delivers nothing when the server refuses the credentials', async () => {
    const seen: Seen[] = [];
    const server = await startAuthServer(['PLAIN', 'LOGIN'], seen);
    const error = await mailerFor(urlWith(server, `${encodeURIComponent(user)}:wrong`)).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/authentication failed: 535/);
    expect(seen).toEqual([{ method: 'PLAIN', username: user, password: 'wrong' }]);
    expect(server.raw).toEqual([]);
  });

  it('fails, rather than sending without signing in, when the URL has credentials and the server offers no AUTH', async () => {
    // This server would take the message unauthenticated: only the client can refuse.
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS', 'AUTH'] }));
    const error = await mailerFor(urlWith(server, credentials)).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/EAUTH .*neither AUTH PLAIN nor AUTH LOGIN/);
    expect(server.raw).toEqual([]);
  });
});

describe('smtpMailer with an older or remote server', () => {
  it('greets with HELO a server that does not know EHLO, and delivers without extensions (RFC 5321 section 3.2)', async () => {
    const server = track(
      await startScriptedSmtpServer({
        onCommand(session, command) {
          const verb = command.slice(0, 4).toUpperCase();
          if (verb === 'EHLO') void session.reply('502 5.5.1 EHLO not implemented\r\n');
          else if (verb === 'HELO') void session.reply('250 scripted.example\r\n');
          else return false;
          return true;
        },
      }),
    );
    await mailerFor(server.url).send(message());
    expect(server.sessions[0]?.commands.slice(0, 3).map((c) => c.slice(0, 4))).toEqual(['EHLO', 'HELO', 'MAIL']);
    expect(server.sessions[0]?.beforeTheirTurn).toEqual([]);
    expect(server.messages).toHaveLength(1);
  });

  it('never sends its credentials in clear to a server on another host that offers no TLS', async (context) => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((nic) => nic && nic.family === 'IPv4' && !nic.internal)?.address;
    if (!address) {
      console.warn('SKIPPED "never sends its credentials in clear": this machine has no IPv4 address besides loopback.');
      context.skip();
    }
    const commands: string[] = [];
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.write('220 remote.example ESMTP\r\n');
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').split('\r\n').filter(Boolean)) {
          commands.push(line);
          socket.write(line.startsWith('EHLO') ? '250-remote.example\r\n250 AUTH PLAIN LOGIN\r\n' : '250 ok\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    track({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const { port } = server.address() as AddressInfo;
    const mailer = mailerFor(`smtp://ana:secret@${address}:${port}`);
    const error = await mailer.send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/EAUTH .*offers no TLS/);
    expect(commands.map((c) => c.slice(0, 4))).toEqual(['EHLO']);
  });
});

describe('smtpMailer when the server refuses a message', () => {
  const refusals = [
    ['550 at RCPT', '550', message({ to: { name: 'Nobody', address: 'nobody@portico.example' } })],
    ['451 at MAIL FROM', '451', message({ from: { name: 'Portico', address: 'tempfail@portico.example' } })],
    ['554 after the data', '554', message({ subject: 'spam' })],
  ] as const;
  const cases = refusals.flatMap(([what, code, mail]) => [false, true].map((hidePIPELINING) => [what, hidePIPELINING ? 'without' : 'with', code, mail, hidePIPELINING] as const));

  it.each(cases)('fails with the code on a %s (%s PIPELINING), then delivers the next message', async (_, _pipelining, code, refused, hidePIPELINING) => {
    const refuse = (responseCode: number, text: string) => Object.assign(new Error(text), { responseCode });
    const options = {
      disabledCommands: ['STARTTLS'],
      hidePIPELINING,
      onMailFrom: (address, _session, callback) => callback(address.address.startsWith('tempfail@') ? refuse(451, '4.7.1 try again later') : null),
      onRcptTo: (address, _session, callback) => callback(address.address.startsWith('nobody@') ? refuse(550, '5.1.1 no such mailbox') : null),
    } satisfies SMTPServerOptions;
    const server = track(await startRealSmtpServer(options, { refuseData: (raw) => (/^Subject: spam\r$/m.test(raw) ? refuse(554, '5.7.1 looks like spam') : undefined) }));
    const mailer = mailerFor(server.url);
    const error = await mailer.send(refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toContain(` ${code} `);
    expect(server.raw).toEqual([]);
    await mailer.send(message({ subject: 'the next one' }));
    expect(server.raw).toHaveLength(1);
    expect(server.raw[0]).toContain('Subject: the next one\r\n');
  });
});

describe('smtpMailer when the server drops a kept connection', () => {
  it('sends on a new connection after the server closed the kept one while it was idle', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onMessage: (session) => (void session.reply('250 queued\r\n').then(() => session.socket.end()), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    await server.sessions[0]?.closed;
    await mailer.send(message());
    expect(server.messages).toHaveLength(2);
    expect(server.sessions.map((s) => s.received)).toEqual([1, 1]);
  });

  it('sends once more on a new connection when the kept one dies before the server answered anything', async () => {
    // The server closes as the next transaction starts: the race a kept connection always runs.
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onCommand: (session, command) => session.received > 0 && command.startsWith('MAIL') && (session.socket.destroy(), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    await mailer.send(message({ subject: 'second' }));
    expect(server.sessions.map((s) => s.received)).toEqual([1, 1]);
  });

  it('never sends a message twice: a kept connection that dies after the data went is not tried again', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onMessage: (session) => session.received > 1 && (session.socket.destroy(), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    await expect(mailer.send(message())).rejects.toThrow(MailDeliveryError);
    expect(server.sessions).toHaveLength(1);
    expect(server.messages).toHaveLength(2);
  });

  it('sends on a new connection after the server was restarted on the same port', async () => {
    const port = await freePort();
    const first = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }, { port }));
    const mailer = mailerFor(first.url);
    await mailer.send(message());
    await first.close();
    const second = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }, { port }));
    await mailer.send(message());
    expect([first.raw.length, second.raw.length]).toEqual([1, 1]);
  });

  it.each([
    ['keeps the connection open', false],
    ['closes the connection', true],
  ])('sends on a new connection after an unsolicited 421 on the idle one, when the server then %s (RFC 5321 section 3.8)', async (_, closes) => {
    let said421: Promise<void> | undefined;
    const idleTooLong = async (session: ScriptedSession) => {
      await session.reply('250 queued\r\n');
      await pause(20);
      await session.reply('421 4.4.2 scripted.example idle too long\r\n');
      if (closes) session.socket.end();
    };
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], onMessage: (session) => ((said421 = idleTooLong(session)), true) }));
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    await said421;
    await pause(50);
    await mailer.send(message({ subject: 'after the 421' }));
    expect(server.sessions.map((s) => s.received)).toEqual([1, 1]);
    expect(server.messages[1]).toContain('Subject: after the 421\r\n');
  });
});

describe('smtpMailer under load, with more messages than connections (RFC 2920 section 3.1)', () => {
  const subjects = (n: number, prefix = 'load') => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);
  const subjectOf = (raw: string) => /^Subject: (.*)\r?$/m.exec(raw)?.[1];

  it("sends a waiting message's envelope behind the final dot of the message before it, and every message arrives once, intact", async () => {
    // The final reply comes 20 ms after the dot: a MAIL FROM before it came behind the dot.
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 20 }));
    const mailer = mailerFor(server.url);
    const sent = subjects(20);
    await Promise.all(sent.map((subject) => mailer.send(message({ subject }))));
    expect(server.messages.map(subjectOf).sort()).toEqual([...sent].sort());
    expect(server.sessions.length).toBeLessThanOrEqual(SMTP_CONNECTIONS);
    expect(server.sessions.flatMap((session) => session.beforeTheirTurn).filter((command) => command.startsWith('MAIL FROM:')).length).toBeGreaterThan(0);
    for (const raw of server.messages) expect(raw).toBe(composedAsReceived(message({ subject: subjectOf(raw)! }), raw));
  });

  it('sends only one transaction at a time to a server that does not offer PIPELINING', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['8BITMIME'], replyDelayMs: 5 }));
    const mailer = mailerFor(server.url);
    await Promise.all(subjects(12).map((subject) => mailer.send(message({ subject }))));
    expect(server.messages).toHaveLength(12);
    expect(server.sessions.flatMap((session) => session.beforeTheirTurn)).toEqual([]);
  });

  it('delivers the message sent behind one the server refuses after its data, and fails only that one', async () => {
    const refuse = (raw: string) => (/^Subject: spam/m.test(raw) ? Object.assign(new Error('5.7.1 looks like spam'), { responseCode: 554 }) : undefined);
    const server = track(await startRealSmtpServer({ disabledCommands: ['STARTTLS'] }, { refuseData: refuse }));
    const mailer = mailerFor(server.url);
    const sent = subjects(20).map((subject, i) => (i % 2 ? `spam ${i}` : subject));
    const outcomes = await Promise.allSettled(sent.map((subject) => mailer.send(message({ subject }))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(sent.map((subject) => (subject.startsWith('spam') ? 'rejected' : 'fulfilled')));
    expect(server.raw.map(subjectOf).sort()).toEqual(sent.filter((subject) => !subject.startsWith('spam')).sort());
  });

  it('never sends a message twice when the connection dies between a message and the envelope behind it', async () => {
    let dropped = 0;
    // The first kept connection (past its first message) with an envelope behind a message's dot dies
    // instead of answering the message.
    const onMessage = (session: ScriptedSession) => {
      if (dropped > 0 || session.received < 2 || session.commands.length === session.commandsAtDot) return false;
      dropped++;
      session.socket.destroy();
      return true;
    };
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], messageReplyDelayMs: 20, onMessage }));
    const mailer = mailerFor(server.url);
    const sent = subjects(30);
    const outcomes = await Promise.allSettled(sent.map((subject) => mailer.send(message({ subject }))));
    expect(dropped).toBe(1);
    // The message whose answer was lost fails (it may have arrived: it is never sent again); the one
    // behind it had sent only its envelope, and goes once more on a new connection.
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
    const received = server.messages.map(subjectOf);
    expect(new Set(received).size).toBe(received.length);
    expect([...received].sort()).toEqual([...sent].sort());
  });
});

describe('smtpMailer against broken or hostile servers', () => {
  it.each([
    ['answers as an HTTP server', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n', /EPROTOCOL not an SMTP reply/],
    ['sends a line of 100 KB without an end', 'x'.repeat(100 * 1024), /EPROTOCOL a reply line without an end/],
    ['sends a greeting of 1,000 lines', '220-hello\r\n'.repeat(1_000), /EPROTOCOL a reply of too many lines/],
    ['greets with 554', '554 no service here\r\n', /554 no service here/],
  ])('fails at once when the server %s', async (_, greeting, reason) => {
    const server = track(await startRawServer((socket) => socket.write(greeting)));
    const started = Date.now();
    const error = await mailerFor(server.url).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(reason);
    expect(since(started)).toBeLessThan(1_000);
  });

  it('gives up on a server that never greets after the 5 s greeting timeout', async () => {
    const server = track(await startRawServer(() => {}));
    const started = Date.now();
    const error = await mailerFor(server.url).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/ETIMEDOUT no greeting within 5 s/);
    expect(since(started)).toBeGreaterThanOrEqual(4_900);
    expect(since(started)).toBeLessThan(6_500);
  }, 15_000);
});

describe('smtpMailer verify and close', () => {
  it('verifies a working server, leaving it with QUIT, and fails to verify where nothing listens', async () => {
    const server = track(await startScriptedSmtpServer());
    await smtpMailer(server.url).verify();
    await server.sessions[0]?.closed;
    expect(server.sessions[0]?.quit).toBe(true);
    await expect(smtpMailer(`smtp://127.0.0.1:${await freePort()}`).verify()).rejects.toThrow(/ECONNREFUSED/);
  });

  it('says QUIT on each idle kept connection when closed, and the server sees them end', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'] }));
    const mailer = smtpMailer(server.url);
    await Promise.all([mailer.send(message()), mailer.send(message())]);
    expect(server.sessions).toHaveLength(2);
    expect(server.sessions.map((s) => s.quit)).toEqual([false, false]);
    await mailer.close();
    await Promise.all(server.sessions.map((s) => s.closed));
    expect(server.sessions.map((s) => s.quit)).toEqual([true, true]);
  });

  it('drops, 2 s after QUIT, a connection the server never closes', async () => {
    // Half-open allowed: this server neither answers QUIT nor closes when the client's side ends.
    const accepted: Socket[] = [];
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      accepted.push(socket);
      socket.on('error', () => {});
      socket.on('end', () => {});
      socket.write('220 stubborn.example ESMTP\r\n');
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').split('\r\n').filter(Boolean)) {
          if (/^EHLO/i.test(line)) socket.write('250-stubborn.example\r\n250 PIPELINING\r\n');
          else if (/^DATA/i.test(line)) socket.write('354 go on\r\n');
          else if (line === '.' || /^(MAIL|RCPT)/i.test(line)) socket.write('250 ok\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    track({
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of accepted) socket.destroy();
          server.close(() => resolve());
        }),
    });
    const tcpSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;
    const mailer = smtpMailer(`smtp://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await mailer.send(message());
    const open = tcpSockets();
    const closedAt = Date.now();
    await mailer.close();
    // The server's side stays open (half-open allowed); the client's own socket must go.
    while (tcpSockets() >= open && since(closedAt) < 5_000) await pause(50);
    expect(since(closedAt)).toBeGreaterThanOrEqual(1_900);
    expect(since(closedAt)).toBeLessThan(3_000);
    expect(accepted).toHaveLength(1);
  });

  it('ends a kept connection on which the server keeps sending replies nobody asked for', async () => {
    const server = track(
      await startScriptedSmtpServer({
        extensions: ['PIPELINING'],
        onMessage: (session) => {
          void session.reply('250 queued\r\n').then(() => session.reply('250 unasked\r\n'.repeat(1_000)));
          return true;
        },
      }),
    );
    const mailer = mailerFor(server.url);
    await mailer.send(message());
    const sentAt = Date.now();
    await server.sessions[0]!.closed;
    // At once, not after the 10 s idle timeout, and without holding 1,000 replies.
    expect(since(sentAt)).toBeLessThan(2_000);
    await mailer.send(message({ subject: 'on a new connection' }));
    expect(server.sessions.map((s) => s.received)).toEqual([1, 1]);
  });

  it('ends at once, with QUIT, the session of a send that finishes after close (its client left during shutdown)', async () => {
    const server = track(await startScriptedSmtpServer({ extensions: ['PIPELINING'], replyDelayMs: 100 }));
    const mailer = smtpMailer(server.url);
    const sending = mailer.send(message());
    await pause(150);
    await mailer.close();
    await sending;
    const ended = Date.now();
    await server.sessions[0]!.closed;
    // Not left open for the 10 s socket timeout, which kept a stopped node alive that long.
    expect(since(ended)).toBeLessThan(1_000);
    expect(server.sessions.map((s) => [s.received, s.quit])).toEqual([[1, true]]);
  });
});

describe.skipIf(!hasOpenssl)('smtpMailer over TLS', () => {
  let dir: string;
  /** One names only the address 127.0.0.1, the other only the name localhost; a spawned node trusts both. */
  let forAddress: Certificate;
  let forName: Certificate;
  let trusted: string;
  const nodes: ServeProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-smtp-tls-'));
    [forAddress, forName] = await Promise.all([makeCertificate(dir, '127.0.0.1'), makeCertificate(dir, 'localhost')]);
    trusted = join(dir, 'trusted.pem');
    await writeFile(trusted, forAddress.cert + forName.cert);
  });
  afterEach(async () => {
    for (const node of nodes.splice(0)) {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['implicit TLS (smtps://)', true],
    ['STARTTLS', false],
  ])('fails and delivers nothing over %s with a certificate it does not trust, never falling back to plaintext', async (_, secure) => {
    const server = track(await startRealSmtpServer({ secure, key: forAddress.key, cert: forAddress.cert }));
    const error = await mailerFor(server.url).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailDeliveryError);
    expect((error as Error).message).toMatch(/self-signed certificate/);
    expect(server.raw).toEqual([]);
  });

  // Node reads NODE_EXTRA_CA_CERTS only as a process starts: a trusted certificate takes a child process.
  const startNode = async (smtpUrl: string) => {
    const node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, `${randomUUID()}.sqlite`)}`,
      SMTP_URL: smtpUrl,
      NODE_EXTRA_CA_CERTS: trusted,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    nodes.push(node);
    return node;
  };
  const postInquiry = async (node: ServeProcess) => {
    const response = await fetch(`${node.url}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry()) });
    await response.arrayBuffer();
    return { status: response.status, node };
  };
  /** Starts a node sending through `smtpUrl` and posts one inquiry: its status, and the node. */
  const postInquiryThrough = async (smtpUrl: string) => postInquiry(await startNode(smtpUrl));

  it('delivers through portico serve over implicit TLS (smtps://), in a session the server saw as secure', async () => {
    const server = track(await startRealSmtpServer({ secure: true, key: forAddress.key, cert: forAddress.cert }));
    expect(server.url).toMatch(/^smtps:\/\/127\.0\.0\.1:/);
    const { status, node } = await postInquiryThrough(server.url);
    expect(status, node.output()).toBe(200);
    expect(server.sessions.map((s) => s.secure)).toEqual([true]);
    expect((await simpleParser(server.raw[0]!)).text).toContain('We manage 40 buildings');
  });

  it.each([
    ['its name', 'localhost', () => forName],
    ['its IP address', '127.0.0.1', () => forAddress],
  ])('delivers through portico serve with STARTTLS to a server SMTP_URL names by %s, then signs in, in a session the server saw as secure', async (_, host, certificate) => {
    const seen: Seen[] = [];
    // STARTTLS on a plain port; smtp-server takes AUTH only after it (no allowInsecureAuth), and mail only after AUTH.
    const onAuth: SMTPServerOptions['onAuth'] = ({ username, password }, session, callback) => (seen.push({ username, password, secure: session.secure }), callback(null, { user: username }));
    const server = track(await startRealSmtpServer({ key: certificate().key, cert: certificate().cert, authOptional: false, onAuth }));
    const { status, node } = await postInquiryThrough(`smtp://mailer%40portico.example:s%3Acret@${host}:${server.port}`);
    expect(status, node.output()).toBe(200);
    expect(seen).toEqual([{ username: 'mailer@portico.example', password: 's:cret', secure: true }]);
    expect(server.sessions.map((s) => s.secure)).toEqual([true]);
  });

  it.each([
    ['implicit TLS (smtps://)', true],
    ['STARTTLS', false],
  ])('refuses over %s a trusted certificate that names another host than SMTP_URL does', async (_, secure) => {
    // SMTP_URL says 127.0.0.1; the certificate, trusted, is for localhost only (RFC 6125 section 6).
    const server = track(await startRealSmtpServer({ secure, key: forName.key, cert: forName.cert }));
    const { status, node } = await postInquiryThrough(server.url);
    expect(status).toBe(502);
    // Refused for the name, not for anything else (the log line may come just after the answer).
    await expect.poll(() => node.output()).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(server.raw).toEqual([]);
  });

  it('does not take a reply injected in plaintext after "220 ready to start TLS" as the answer to its EHLO over TLS (RFC 3207 section 4.2)', async () => {
    // A man in the middle appends a reply to the server's 220 on the first connection; the real server
    // answers every command 200 ms late. A client that read the injected line as the answer to its
    // EHLO over TLS sends MAIL FROM before the real answer came. Dropping the connection or the line is fine.
    let connections = 0;
    const server = track(await startScriptedSmtpServer({ tls: forName, afterStarttls: () => (++connections === 1 ? '250 injected before TLS\r\n' : ''), replyDelayMs: 200 }));
    const node = await startNode(server.url.replace('127.0.0.1', 'localhost'));
    expect([200, 502]).toContain((await postInquiry(node)).status);
    // The next inquiry goes through (on the same connection or a new one): TLS itself works.
    expect((await postInquiry(node)).status).toBe(200);
    expect(server.sessions.some((s) => s.secure && s.received > 0)).toBe(true);
    expect(server.sessions.map((s) => s.beforeTheirTurn), 'commands sent before the server had answered the one before').toEqual(server.sessions.map(() => []));
  }, 30_000);
});
