// The inquiry e-mail the mail tests send: a non-ASCII name, our own header, fields overridable.
import { randomUUID } from 'node:crypto';
import type { MailMessage } from '../../src/ports/mailer.js';

export const mailMessage = (fields: Partial<MailMessage> = {}): MailMessage => {
  const id = randomUUID();
  return {
    from: { name: 'Portico', address: 'web@portico.example' },
    to: { name: 'Team', address: 'team@portico.example' },
    replyTo: { name: 'Ana García', address: 'ana@example.com' },
    subject: 'New inquiry from Ana García [es]',
    text: 'We manage 40 buildings.\nCould we see a demo?',
    messageId: `<${id}@portico.example>`,
    date: new Date('2026-11-25T10:00:00Z'),
    headers: { 'X-Portico-Inquiry-Id': id },
    ...fields,
  };
};
