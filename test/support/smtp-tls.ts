// Mail servers for the SMTP client's own tests, on loopback: smtp-server configured per test, a scripted
// node:net server for what smtp-server will not do (no PIPELINING on demand, idle 421s and closes,
// plaintext injected after STARTTLS, hostile greetings), and a self-signed certificate for TLS.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

export const OPENSSL = '/usr/bin/openssl';

export interface Certificate {
  certPath: string;
  key: string;
  cert: string;
}

/**
 * A self-signed certificate for `name` and any `otherNames` (IP addresses or DNS names), written to `dir`;
 * trusted only where NODE_EXTRA_CA_CERTS lists it.
 */
export async function makeCertificate(dir: string, name: string, ...otherNames: string[]): Promise<Certificate> {
  const certPath = join(dir, `${name}.cert.pem`);
  const keyPath = join(dir, `${name}.key.pem`);
  const altNames = [name, ...otherNames].map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`];
  execFileSync(OPENSSL, [...args, '-addext', `subjectAltName=${altNames}`, '-keyout', keyPath, '-out', certPath], { stdio: 'ignore' });
  return { certPath, key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
}

export interface RealSmtpServer {
  port: number;
  url: string;
  /** Each accepted message as smtp-server passed it on: the data with dot-stuffing undone. */
  raw: string[];
  /** The session each accepted message came in, as smtp-server saw it. */
  sessions: SMTPServerSession[];
  close(): Promise<void>;
}

/**
 * smtp-server with `options` on top of: no reverse lookup, no logs, authentication optional; every
 * message accepted unless `refuseData` returns an error for it (with its `responseCode`). Closing
 * twice is closing once.
 */
export async function startRealSmtpServer(options: SMTPServerOptions = {}, extra: { port?: number; refuseData?(raw: string): Error | undefined } = {}): Promise<RealSmtpServer> {
  const state: RealSmtpServer = { port: 0, url: '', raw: [], sessions: [], close: async () => {} };
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const refusal = extra.refuseData?.(raw);
        if (!refusal) {
          state.raw.push(raw);
          state.sessions.push({ ...session });
        }
        callback(refusal);
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(extra.port ?? 0, '127.0.0.1', resolve));
  state.port = (server.server.address() as AddressInfo).port;
  state.url = `${options.secure ? 'smtps' : 'smtp'}://127.0.0.1:${state.port}`;
  let closed: Promise<void> | undefined;
  state.close = () =>
    (closed ??= new Promise<void>((resolve) => {
      for (const connection of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) connection._socket.destroy();
      server.close(() => resolve());
    }));
  return state;
}

/** A loopback TCP server whose every connection is handed to `onConnection`; `close` destroys them all. */
export async function startRawServer(onConnection: (socket: Socket) => void): Promise<{ server: Server; url: string; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface ScriptedSession {
  /** Command lines in the order they came, outside the message data. */
  commands: string[];
  /** Commands that came while the server still owed the reply to an earlier one. */
  beforeTheirTurn: string[];
  /** Messages received on this connection (their data ended by the final dot). */
  received: number;
  /** How many commands had come when the latest message's final dot came. */
  commandsAtDot: number;
  /** The TLS handshake after STARTTLS completed. */
  secure: boolean;
  quit: boolean;
  closed: Promise<void>;
  socket: Socket;
  /** Writes a reply (in pieces of `replyPieceBytes`, one a millisecond, when set). */
  reply(text: string): Promise<void>;
}

export interface SmtpScript {
  /** The greeting, "220 scripted.example ESMTP" unless given. */
  greeting?: string;
  /** EHLO keywords besides STARTTLS (offered when `tls` is given, until the session is secure). */
  extensions?: string[];
  /** Every reply waits this long, so a command sent before its turn is seen as such. */
  replyDelayMs?: number;
  tls?: { key: string; cert: string };
  /** Each reply is written in pieces of this many bytes, a millisecond apart, as a slow network cuts them. */
  replyPieceBytes?: number;
  /** Bytes sent in plaintext right after "220 ready to start TLS", in the same write (RFC 3207 response injection). */
  afterStarttls?(session: ScriptedSession): string;
  /** Takes a command before the script does; return true when it was handled. */
  onCommand?(session: ScriptedSession, command: string): boolean;
  /** How long the answer to a message's final dot waits (the commands sent behind it wait too). */
  messageReplyDelayMs?: number;
  /** Takes a received message before the script answers it "250 queued"; return true when it was handled. */
  onMessage?(session: ScriptedSession): boolean;
}

export interface ScriptedSmtpServer {
  url: string;
  port: number;
  sessions: ScriptedSession[];
  /** Received messages with dot-stuffing undone and the line end before the final dot kept, as smtp-server passes them on. */
  messages: string[];
  close(): Promise<void>;
}

/** A minimal SMTP server that answers each command in turn, and notes any command sent before its turn. */
export async function startScriptedSmtpServer(script: SmtpScript = {}): Promise<ScriptedSmtpServer> {
  const messages: string[] = [];
  const sessions: ScriptedSession[] = [];
  const raw = await startRawServer((plain) => {
    let socket: Socket = plain;
    let buffer = '';
    let data: string[] | undefined;
    let owed = 0;
    let upgraded = false;
    let turn = Promise.resolve();
    const session: ScriptedSession = {
      commands: [],
      beforeTheirTurn: [],
      received: 0,
      commandsAtDot: 0,
      secure: false,
      quit: false,
      closed: new Promise((resolve) => plain.once('close', () => resolve())),
      socket: plain,
      reply: async (text) => {
        const size = script.replyPieceBytes ?? text.length;
        for (let i = 0; i < text.length; i += size) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1));
          if (socket.writable) socket.write(text.slice(i, i + size));
        }
      },
    };
    sessions.push(session);
    const later = () => new Promise((resolve) => setTimeout(resolve, script.replyDelayMs ?? 0));

    const answer = async (command: string) => {
      await later();
      if (script.onCommand?.(session, command)) return;
      const verb = command.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') {
        const keywords = [...(script.extensions ?? []), ...(script.tls && !upgraded ? ['STARTTLS'] : [])];
        const lines = ['scripted.example', ...keywords];
        await session.reply(lines.map((line, i) => `250${i === lines.length - 1 ? ' ' : '-'}${line}\r\n`).join(''));
      } else if (verb === 'STAR' && script.tls && !upgraded) {
        upgraded = true;
        socket.removeListener('data', receive);
        socket.write(`220 ready to start TLS\r\n${script.afterStarttls?.(session) ?? ''}`);
        const secure = new TLSSocket(plain, { isServer: true, key: script.tls.key, cert: script.tls.cert });
        secure.on('error', () => plain.destroy());
        secure.setEncoding('latin1');
        secure.on('data', receive);
        secure.once('secure', () => (session.secure = true));
        socket = secure;
        buffer = '';
      } else if (verb === 'DATA') {
        data = [];
        await session.reply('354 go ahead\r\n');
      } else if (verb === 'QUIT') {
        socket.end('221 bye\r\n');
      } else if (['MAIL', 'RCPT', 'RSET', 'NOOP'].includes(verb)) await session.reply('250 ok\r\n');
      else await session.reply('502 not implemented\r\n');
    };

    const receive = (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (data && line !== '.') data.push(line.startsWith('.') ? line.slice(1) : line);
        else if (data) {
          messages.push(data.map((l) => `${l}\r\n`).join(''));
          data = undefined;
          session.received++;
          session.commandsAtDot = session.commands.length;
          // Answered in turn, as a real server does: commands pipelined behind the dot wait for it.
          owed++;
          turn = turn
            .then(async () => {
              if (script.messageReplyDelayMs) await new Promise((resolve) => setTimeout(resolve, script.messageReplyDelayMs));
              if (!script.onMessage?.(session)) await session.reply('250 queued\r\n');
            })
            .catch(() => {})
            .finally(() => owed--);
        } else {
          session.commands.push(line);
          if (/^QUIT$/i.test(line)) session.quit = true;
          if (owed > 0) session.beforeTheirTurn.push(line);
          owed++;
          turn = turn
            .then(() => answer(line))
            .catch(() => {})
            .finally(() => owed--);
        }
      }
    };

    plain.setEncoding('latin1');
    plain.on('data', receive);
    void session.reply(script.greeting ?? '220 scripted.example ESMTP\r\n');
  });
  return { url: raw.url, port: raw.port, sessions, messages, close: raw.close };
}
