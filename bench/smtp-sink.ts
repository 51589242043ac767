// A loopback SMTP server that accepts and discards every message; prints its URL, runs until killed.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, _session, callback) {
    stream.on('end', () => callback());
    stream.resume();
  },
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.server.address() as AddressInfo;
  process.stdout.write(`smtp://127.0.0.1:${port}\n`);
});
