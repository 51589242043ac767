// The inquiry e-mail the mail tests send: a non-ASCII name, our own header, fields overridable.
import type { MailMessage } from '../../src/ports/mailer.js';

export const mailMessage = (fields: Partial<MailMessage> = {}): MailMessage => ({
  from: { name: 'Portico', address: 'web@portico.example' },
  to: { name: 'Team', address: 'team@portico.example' },
  replyTo: { name: 'Ana García', address: 'ana@example.com' },
  subject: 'New inquiry from Ana García [es]',
  text: 'We manage 40 buildings.\nCould we see a demo?',
  headers: { 'X-Portico-Inquiry-Id': '0190f3a0-0000-7000-8000-000000000001' },
  ...fields,
});
