// An SMTP client (RFC 5321) for one kind of traffic: a single 7-bit message to a few recipients per
// transaction, on kept-open connections, with command pipelining (RFC 2920), STARTTLS (RFC 3207) and
// AUTH PLAIN or LOGIN (RFC 4954, RFC 4616). nodemailer's pool spent 360-800 us of CPU per message on
// the server's core; this spends 40-60 (docs/performance.md, "POST /api/contact").
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { asSmtpError, extensionsOf, isLoopback, isPositive, NOT_ASCII, replyError, SmtpError, type Reply, type SmtpTarget } from './smtp-protocol.js';

export { parseSmtpUrl, SmtpError, type SmtpTarget } from './smtp-protocol.js';

// A reply is a few short lines (RFC 5321 section 4.5.3.1.5: 512 octets a line); a server sending
// more without a line end, or endless continuation lines, is broken or hostile.
const MAX_PENDING_BYTES = 64 * 1024;
const MAX_REPLY_LINES = 200;
const MAX_UNASKED_REPLIES = 4;
// How long a server may take to close the connection after QUIT.
const QUIT_WAIT_MS = 2_000;

/** One SMTP session. Commands are written as they come; replies are matched to waiters in order. */
export class SmtpConnection {
  private socket!: Socket;
  private pending = '';
  private lines: string[] = [];
  private lineCode = 0;
  private readonly replies: Reply[] = [];
  private readonly waiters: { resolve(reply: Reply): void; reject(error: Error): void }[] = [];
  private extensions = new Map<string, string>();
  /** Set once the session is unusable; every later call fails with it. */
  failure: SmtpError | undefined;

  constructor(private readonly target: SmtpTarget) {}

  /** Connects, reads the greeting, says EHLO, upgrades with STARTTLS when offered, authenticates. */
  async open(): Promise<void> {
    try {
      await this.start();
    } catch (error) {
      this.fail(asSmtpError(error));
      throw this.failure;
    }
  }

  get usable(): boolean {
    return this.failure === undefined;
  }

  /**
   * One mail transaction (RFC 5321 section 3.3). Resolves when the server took responsibility for the
   * message (250 after the data); rejects with the refusing reply, or with the connection's failure.
   *
   * With PIPELINING, `handOn` is asked just before the message goes out whether another transaction
   * will follow on this connection; when it says yes, that transaction's commands go out in the same
   * write as this message's final dot (RFC 2920 section 3.1), and its replies follow this one's.
   */
  async send(envelope: { from: string; to: readonly string[] }, raw: string, handOn?: () => boolean): Promise<void> {
    // Latin-1 writes would cut a character above U+00FF to one byte (U+010A to a bare LF): only ASCII goes out.
    if (NOT_ASCII.test(raw) || NOT_ASCII.test(envelope.from) || envelope.to.some((to) => NOT_ASCII.test(to))) throw new SmtpError('the message is not 7-bit ASCII', 'EMESSAGE');
    // A reply nobody asked for (a 421 as the server shuts down) ends the session (RFC 5321 section 3.8).
    if (this.replies.length) this.fail(new SmtpError(`the server said unasked: ${this.replies[0]!.code} ${this.replies[0]!.text}`.slice(0, 300), 'ECONNECTION'));
    if (this.failure) throw this.failure.unansweredCopy();
    const commands = [`MAIL FROM:<${envelope.from}>`, ...envelope.to.map((to) => `RCPT TO:<${to}>`), 'DATA'];
    const replies: Reply[] = [];
    // RFC 2920 section 3.1: with PIPELINING the envelope goes in one write and DATA ends the group.
    if (this.extensions.has('PIPELINING')) {
      this.write(`${commands.join('\r\n')}\r\n`);
      replies.push(await this.firstReply());
      for (let i = 1; i < commands.length; i++) replies.push(await this.read());
    } else {
      for (const command of commands) {
        this.write(`${command}\r\n`);
        const reply = await (replies.length ? this.read() : this.firstReply());
        replies.push(reply);
        if (!isPositive(reply)) break;
      }
    }
    const refused = replies.findIndex((reply, i) => (i === commands.length - 1 ? reply.code !== 354 : !isPositive(reply)));
    if (refused >= 0) {
      const dataAccepted = replies.length === commands.length && replies.at(-1)!.code === 354;
      // The server waits for the message after a 354: a transaction refused in part cannot go on.
      if (dataAccepted) this.fail(new SmtpError('the server took DATA after refusing the envelope', 'EPROTOCOL'));
      else await this.reset();
      throw replyError(replies[refused]!);
    }
    // RFC 5321 section 4.5.2: a line starting with a period gets one more; the message ends with CRLF.CRLF.
    const body = raw.replace(/(^|\r\n)\./g, '$1..');
    // The next sender continues in a microtask: the socket is held until the microtasks have run, so
    // its envelope joins this write. Its reads queue behind this message's final reply.
    if (handOn && this.extensions.has('PIPELINING') && handOn()) {
      this.socket.cork();
      process.nextTick(() => this.socket.uncork());
    }
    this.write(`${body}${body.endsWith('\r\n') ? '' : '\r\n'}.\r\n`);
    const final = await this.read();
    if (final.code !== 250) throw replyError(final);
  }

  /** QUIT (RFC 5321 section 4.1.1.10), without waiting for its reply; the socket then closes. */
  quit(): void {
    if (this.failure) return;
    this.failure = new SmtpError('the connection was closed by Portico', 'ECLOSED');
    this.socket.end('QUIT\r\n');
    // A server that ignores QUIT does not hold the socket (and the process) open.
    setTimeout(() => this.socket.destroy(), QUIT_WAIT_MS).unref();
  }

  /** Ends the session at once: the in-flight command, if any, fails with `error`. */
  fail(error: SmtpError): void {
    if (this.failure) return;
    this.failure = error;
    this.socket?.destroy();
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private async start(): Promise<void> {
    const { host, port, secure } = this.target;
    const servername = isIP(host) ? undefined : host;
    this.attach(secure ? tlsConnect({ host, port, servername }) : netConnect({ host, port }));
    await this.connected(secure ? 'secureConnect' : 'connect');
    const greeting = await this.readWithin(this.target.greetingTimeoutMs, 'greeting');
    if (greeting.code !== 220) throw replyError(greeting);
    await this.hello();
    if (!secure && this.extensions.has('STARTTLS')) {
      this.write('STARTTLS\r\n');
      const ready = await this.read();
      if (ready.code !== 220) throw replyError(ready);
      // RFC 3207 section 4.2: the session starts over. Anything sent in clear after the 220 came from
      // before TLS and could be a man in the middle's (as in CVE-2020-14954): the session is ended.
      if (this.replies.length || this.pending || this.lines.length) throw new SmtpError('the server sent more in clear after agreeing to STARTTLS', 'EPROTOCOL');
      const plain = this.socket;
      plain.removeAllListeners('data');
      plain.removeAllListeners('timeout');
      plain.setTimeout(0);
      // The certificate is checked against `host` (an IP address too); without it Node checks "localhost".
      this.attach(tlsConnect({ socket: plain, host, servername }));
      await this.connected('secureConnect');
      await this.hello();
    }
    if (this.target.auth) {
      // Credentials never cross a network in clear: without TLS they go only to a server on this host.
      if (!this.encrypted && !isLoopback(this.socket.remoteAddress)) {
        throw new SmtpError('the SMTP URL has credentials, but the server offers no TLS (use smtps://, or a server that offers STARTTLS)', 'EAUTH');
      }
      await this.authenticate(this.target.auth);
    }
  }

  /** EHLO with this host's name, or its address literal (RFC 5321 section 4.1.3) when the name is not a domain. */
  private async hello(): Promise<void> {
    const name = hostname();
    const local = this.socket.localAddress ?? '127.0.0.1';
    const identity = name.includes('.') ? name : isIP(local) === 6 ? `[IPv6:${local}]` : `[${local}]`;
    this.write(`EHLO ${identity}\r\n`);
    const reply = await this.read();
    if (reply.code >= 500 && reply.code !== 554) {
      // RFC 5321 section 3.2: a server that does not know EHLO is greeted with HELO, and offers no extensions.
      this.write(`HELO ${identity}\r\n`);
      const helo = await this.read();
      if (helo.code !== 250) throw replyError(helo);
      this.extensions = new Map();
      return;
    }
    if (reply.code !== 250) throw replyError(reply);
    this.extensions = extensionsOf(reply);
  }

  private async authenticate({ user, pass }: { user: string; pass: string }): Promise<void> {
    const methods = (this.extensions.get('AUTH') ?? '').split(' ');
    let reply: Reply;
    if (methods.includes('PLAIN')) {
      // RFC 4616 section 2: authorization identity (empty), NUL, user, NUL, password.
      this.write(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}\r\n`);
      reply = await this.read();
    } else if (methods.includes('LOGIN')) {
      this.write('AUTH LOGIN\r\n');
      reply = await this.read();
      if (reply.code === 334) {
        this.write(`${Buffer.from(user).toString('base64')}\r\n`);
        reply = await this.read();
      }
      if (reply.code === 334) {
        this.write(`${Buffer.from(pass).toString('base64')}\r\n`);
        reply = await this.read();
      }
    } else {
      throw new SmtpError('the SMTP URL has credentials, but the server offers neither AUTH PLAIN nor AUTH LOGIN', 'EAUTH');
    }
    if (reply.code !== 235) throw new SmtpError(`authentication failed: ${reply.code} ${reply.text}`.slice(0, 300), 'EAUTH', reply.code);
  }

  /** RSET (RFC 5321 section 4.1.1.5) after a refused transaction; a session that cannot reset is closed. */
  private async reset(): Promise<void> {
    this.write('RSET\r\n');
    const reply = await this.read().catch(() => undefined);
    if (reply?.code !== 250) this.fail(new SmtpError('the server did not accept RSET', 'EPROTOCOL'));
  }

  private get encrypted(): boolean {
    return (this.socket as Socket & { encrypted?: boolean }).encrypted === true;
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.setNoDelay(true);
    socket.setTimeout(this.target.socketTimeoutMs);
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('timeout', () => {
      // An idle kept connection is closed politely; a silent server in mid-command is given up.
      if (this.waiters.length === 0) this.quit();
      else this.fail(new SmtpError(`no reply within ${this.target.socketTimeoutMs / 1000} s`, 'ETIMEDOUT'));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => this.fail(new SmtpError(error.message, error.code ?? 'ESOCKET')));
    socket.on('close', () => this.fail(new SmtpError('the server closed the connection', 'ECONNECTION')));
  }

  private connected(event: 'connect' | 'secureConnect'): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new SmtpError(`no connection within ${this.target.connectTimeoutMs / 1000} s`, 'ETIMEDOUT')), this.target.connectTimeoutMs);
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.socket.off(event, onConnect);
        this.socket.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onConnect = () => done();
      const onClose = () => done(this.failure ?? new SmtpError('the connection closed while opening', 'ECONNECTION'));
      this.socket.once(event, onConnect);
      this.socket.once('close', onClose);
    });
  }

  private write(text: string): void {
    if (this.failure) throw this.failure;
    this.socket.write(text, 'latin1');
  }

  private read(): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const reply = this.replies.shift();
    if (reply) return Promise.resolve(reply);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * The reply to a transaction's first command. A session that ends before it came (the server
   * closed a kept connection as we chose it) saw nothing of the message: `unanswered` says so.
   */
  private async firstReply(): Promise<Reply> {
    try {
      return await this.read();
    } catch (error) {
      throw error instanceof SmtpError ? error.unansweredCopy() : error;
    }
  }

  private async readWithin(ms: number, what: string): Promise<Reply> {
    const timer = setTimeout(() => this.fail(new SmtpError(`no ${what} within ${ms / 1000} s`, 'ETIMEDOUT')), ms);
    try {
      return await this.read();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Splits the stream into reply lines: `250-...` continues a reply, `250 ...` ends it (RFC 5321 section 4.2.1). */
  private receive(chunk: string): void {
    this.pending += chunk;
    let end: number;
    while ((end = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, end).replace(/\r$/, '');
      this.pending = this.pending.slice(end + 1);
      const code = Number(line.slice(0, 3));
      if (!/^[2-5]\d\d([ -]|$)/.test(line) || (this.lines.length && code !== this.lineCode)) {
        return this.fail(new SmtpError(`not an SMTP reply: ${JSON.stringify(line.slice(0, 80))}`, 'EPROTOCOL'));
      }
      this.lineCode = code;
      this.lines.push(line.slice(4));
      if (line[3] === '-') {
        if (this.lines.length > MAX_REPLY_LINES) return this.fail(new SmtpError('a reply of too many lines', 'EPROTOCOL'));
        continue;
      }
      const reply = { code, text: this.lines.join('\n') };
      this.lines = [];
      if (reply.text.length > MAX_PENDING_BYTES) return this.fail(new SmtpError('a reply too long', 'EPROTOCOL'));
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(reply);
      // Replies nobody asked for are kept only to end the session at the next send (RFC 5321 section 3.8).
      else if (this.replies.push(reply) > MAX_UNASKED_REPLIES) return this.fail(new SmtpError('replies nobody asked for', 'EPROTOCOL'));
    }
    if (this.pending.length > MAX_PENDING_BYTES) this.fail(new SmtpError('a reply line without an end', 'EPROTOCOL'));
  }
}
