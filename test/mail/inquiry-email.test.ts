// The team's e-mail for an inquiry as mail readers see it: submitter text that looks like an RFC 2047
// encoded-word reads back as typed, a bare CR is no line of its own, the body stays readable as text,
// and the labels speak the inquiry's language. Read back by mailparser and by Python's email package.
import { execFileSync, spawnSync } from 'node:child_process';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { composeInquiryEmail } from '../../src/modules/contact/email.js';
import type { NewInquiry } from '../../src/ports/inquiry-store.js';
import { mailerFromSettings } from '../support/smtp-mailer.js';
import { startRealSmtpServer, type RealSmtpServer } from '../support/smtp-tls.js';

const team = { name: 'Team', address: 'team@portico.example' };
const settings = { appEnv: 'production' as const, mailFrom: { name: 'Portico', address: 'web@portico.example' }, mailTo: team, mailToByTopic: { sales: team, demo: team, support: team } };
const inquiry = (fields: Partial<NewInquiry> = {}): NewInquiry => ({
  id: '0190f3a0-0000-7000-8000-00000000abcd',
  createdAt: Date.parse('2026-11-25T09:30:00Z'),
  status: 'pending',
  channel: 'web',
  name: 'Ana García',
  email: 'ana@example.com',
  message: 'We manage 40 buildings.',
  locale: 'en',
  topic: null,
  consent: null,
  clientId: null,
  remoteIp: '203.0.113.9',
  idempotencyKey: null,
  fingerprint: 'f',
  contentHash: 'c'.repeat(64),
  spamReasons: [],
  ...fields,
});

let server: RealSmtpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Sends the inquiry's e-mail through a real SMTP server; the raw message as received. */
async function delivered(fields: Partial<NewInquiry>): Promise<string> {
  server = await startRealSmtpServer({ disabledCommands: ['STARTTLS'] });
  const mailer = mailerFromSettings(server.url);
  try {
    await mailer.send(composeInquiryEmail(inquiry(fields), settings));
  } finally {
    await mailer.close();
  }
  return server.raw[0]!;
}

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython) console.warn('SKIPPED the Python half of test/mail/inquiry-email.test.ts: python3 is missing (.ci/run installs it).');

/** Python's reading (email.policy.default), as a modern mail tool in another language reads it; its checks are skipped without python3. */
function readByPython(raw: string): { replyTo: string; replyToName: string; subject: string; body: string } {
  if (!hasPython) return { replyTo: '', replyToName: '', subject: '', body: '' };
  const script = [
    'import email, email.policy, json, sys',
    'm = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.default)',
    'r = m["Reply-To"]',
    'print(json.dumps({"replyTo": str(r), "replyToName": r.addresses[0].display_name, "subject": str(m["Subject"]), "body": m.get_content()}))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script], { input: Buffer.from(raw, 'latin1') }).toString('utf8'));
}

const LOOKALIKE = '=?UTF-8?B?QWRtaW4gPGFkbWluQGJhbmsuZXhhbXBsZT4=?=';

describe('the inquiry e-mail as mail readers see it', () => {
  it('shows a name typed as an encoded-word exactly as typed, never as the "Admin <admin@bank.example>" it decodes to (RFC 2047 section 5)', async () => {
    const raw = await delivered({ name: LOOKALIKE });
    expect(raw.slice(0, raw.indexOf('\r\n\r\n')), 'the header section').not.toContain(LOOKALIKE);
    const parsed = await simpleParser(raw);
    expect(parsed.replyTo?.value).toEqual([{ name: LOOKALIKE, address: 'ana@example.com' }]);
    expect(parsed.subject).toBe(`New inquiry from ${LOOKALIKE} [en]`);
    const python = readByPython(raw);
    if (hasPython) expect([python.replyToName, python.subject]).toEqual([LOOKALIKE, `New inquiry from ${LOOKALIKE} [en]`]);
  });

  it.each([
    ['a word among others', `Ana ${LOOKALIKE} García`],
    ['a malformed one', 'Ana =?x?Q?broken'],
  ])('keeps %s that begins with =? as typed', async (_, name) => {
    const raw = await delivered({ name });
    expect((await simpleParser(raw)).replyTo?.value[0]?.name).toBe(name);
    if (hasPython) expect(readByPython(raw).replyToName).toBe(name);
  });

  it('turns a bare CR in the message into a line break, the same for every reader', async () => {
    const raw = await delivered({ message: 'first\rsecond\r\nthird\nfourth' });
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    expect(body.replace(/\r\n/g, ''), 'no CR but in CRLF on the wire').not.toMatch(/\r|=0D/);
    expect((await simpleParser(raw)).text?.replace(/\r\n/g, '\n')).toContain('first\nsecond\nthird\nfourth\n');
    if (hasPython) expect(readByPython(raw).body.replace(/\r\n/g, '\n')).toContain('first\nsecond\nthird\nfourth\n');
  });

  it('keeps a mostly-ASCII body readable as it travels (quoted-printable, not base64)', async () => {
    const raw = await delivered({ message: 'Queremos una demostración para 40 edificios.' });
    expect(raw).toMatch(/^Content-Transfer-Encoding: quoted-printable\r$/m);
    expect(raw).toContain('demostraci=C3=B3n para 40 edificios.');
  });

  it("labels the fields in the inquiry's language, with the same Message-ID and Date on every attempt", async () => {
    const raw = await delivered({ locale: 'ca', channel: 'mcp', clientId: 'https://app.example/client.json' });
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe('Nova consulta de Ana García [ca]');
    expect(parsed.text).toContain('Nom: Ana García\nCorreu electrònic: ana@example.com\nMotiu: Consulta general\nIdioma: ca\nCanal: MCP (client https://app.example/client.json)\n');
    expect(parsed.messageId).toBe('<0190f3a0-0000-7000-8000-00000000abcd@portico.example>');
    expect(parsed.date?.toISOString()).toBe('2026-11-25T09:30:00.000Z');
    const again = composeInquiryEmail(inquiry({ locale: 'ca' }), settings);
    expect([again.messageId, again.date.toISOString()]).toEqual([parsed.messageId, '2026-11-25T09:30:00.000Z']);
  });
});
