// A real SMTP server on loopback (npm smtp-server) that accepts, refuses for now at MAIL FROM (451),
// refuses for good at RCPT (550), drops the connection,
// answers slowly, or takes the message and never answers (`hang`, as a wedged server does).
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type SmtpMode = 'accept' | 'reject-mail' | 'reject-rcpt' | 'drop' | 'slow' | 'hang';

export interface TestSmtpServer {
  url: string;
  /** Messages accepted so far, parsed. */
  messages: ParsedMail[];
  /** The messages the server answered 250 to: delivered, as far as the client can know. */
  accepted: ParsedMail[];
  /** Raw messages as received on the wire. */
  raw: string[];
  mode: SmtpMode;
  /** How long an accepting server takes to answer a message's end, as a relay across the Internet does (0). */
  acceptAfterMs: number;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0: any free one); a server restarted on the same port is the same server to its
 * clients. `host` is loopback unless a container must reach it.
 */
export async function startSmtpServer(mode: SmtpMode = 'accept', port = 0, host = '127.0.0.1'): Promise<TestSmtpServer> {
  const state: TestSmtpServer = { url: '', messages: [], accepted: [], raw: [], mode, acceptAfterMs: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      if (state.mode === 'reject-mail') return callback(Object.assign(new Error('4.7.1 try again later'), { responseCode: 451 }));
      callback();
    },
    onRcptTo(_address, session, callback) {
      if (state.mode === 'reject-rcpt') return callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
      if (state.mode === 'drop') {
        // Vanish mid-transaction, as a crashed or firewalled server does.
        for (const connection of (server as unknown as { connections: Set<{ session: object; _socket: { destroy(): void } }> }).connections) {
          if (connection.session === session) connection._socket.destroy();
        }
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        state.raw.push(raw.toString('utf8'));
        const parsed = await simpleParser(raw);
        state.messages.push(parsed);
        // A mail server that takes its time to accept, as a loaded one does.
        if (state.mode === 'hang') return;
        const accept = () => (state.accepted.push(parsed), callback());
        if (state.mode === 'slow') setTimeout(accept, 1500);
        else if (state.acceptAfterMs > 0) setTimeout(accept, state.acceptAfterMs);
        else accept();
      });
    },
  });
  // Clients that vanish (a killed server under test) reset their connections; that is expected here.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  state.url = `smtp://${host}:${(server.server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const connection of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) connection._socket.destroy();
      server.close(() => resolve());
    });
  return state;
}

/**
 * A mail server that greets at once, then answers every command one byte every `byteMs`: never
 * silent long enough for a socket timeout, yet a message takes about 40 bytes x `byteMs` to get through.
 */
export async function startTricklingSmtpServer(byteMs = 500): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const trickle = (reply: string) => {
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent >= reply.length) return clearInterval(timer);
        socket.write(reply[sent++]!);
      }, byteMs);
    };
    let inData = false;
    socket.write('220 slow.example ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (inData) {
        if (text.endsWith('\r\n.\r\n')) {
          inData = false;
          trickle('250 queued\r\n');
        }
        return;
      }
      if (/^DATA/i.test(text)) {
        inData = true;
        socket.write('354 go ahead\r\n');
      } else if (/^QUIT/i.test(text)) socket.end('221 bye\r\n');
      else trickle('250 ok\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
