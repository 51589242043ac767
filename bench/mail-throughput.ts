// E-mail throughput through Portico's SMTP adapter (nodemailer's pool, src/adapters/mail) to a loopback
// sink: `node --import tsx bench/mail-throughput.ts SMTP_URL SECONDS`, pinned by the caller; prints
// one JSON line. Informational: the mail-sending scenarios can go no faster than this.
import { smtpMailer } from '../src/adapters/mail/smtp-mailer.js';
import { loadConfig } from '../src/config/config.js';
import { composeInquiryEmail } from '../src/modules/contact/email.js';

const [smtpUrl, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 3);
const IN_FLIGHT = 50;
const team = { name: 'Team', address: 'team@portico.example' };
const settings = { appEnv: 'production' as const, mailFrom: { name: 'Portico', address: 'web@portico.example' }, mailTo: team, mailToByTopic: { sales: team, demo: team, support: team } };

const { smtp, dkim } = loadConfig({ SMTP_URL: smtpUrl }).delivery;
const mailer = smtpMailer({ smtp: smtp!, dkim, log: { debug() {}, warn() {} } });
let sent = 0;
let failed = 0;
const message = (n: number) =>
  composeInquiryEmail(
    {
      id: `0190f3a0-0000-7000-8000-${String(n).padStart(12, '0')}`,
      createdAt: Date.now(),
      status: 'pending',
      channel: 'api',
      name: 'Ana García',
      email: 'bench@example.com',
      message: 'We manage 40 buildings and would like a demo.',
      locale: 'es',
      topic: null,
      consent: null,
      clientId: null,
      remoteIp: '127.0.0.1',
      idempotencyKey: null,
      fingerprint: '',
      spamReasons: [],
    },
    settings,
  );

// A warm pool first, as in the server after its first requests.
await Promise.all(Array.from({ length: 5 }, (_, i) => mailer.send(message(i))));
const deadline = performance.now() + seconds * 1000;
const cpu = process.cpuUsage();
const started = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (performance.now() < deadline) {
      try {
        await mailer.send(message(sent + failed));
        sent++;
      } catch {
        failed++;
      }
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
await mailer.close();
process.stdout.write(`${JSON.stringify({ messagesPerSecond: sent / elapsed, cpuMicrosPerMessage: (used.user + used.system) / Math.max(sent, 1), failed, inFlight: IN_FLIGHT })}\n`);
