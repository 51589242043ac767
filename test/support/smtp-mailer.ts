// smtpMailer as portico serve builds it, from SMTP_* settings, for the mail tests that drive it directly.
import { smtpMailer } from '../../src/adapters/mail/smtp-mailer.js';
import { loadConfig } from '../../src/config/config.js';
import type { Mailer } from '../../src/ports/mailer.js';

const quiet = { debug() {}, warn() {} };

/** A mailer for `SMTP_URL=url` and the other settings in `env`, as loadConfig reads them. */
export function mailerFromSettings(url: string, env: Record<string, string> = {}): Mailer {
  const { smtp, dkim } = loadConfig({ SMTP_URL: url, SMTP_EHLO_NAME: 'portico.test', ...env }).delivery;
  return smtpMailer({ smtp: smtp!, dkim, log: quiet });
}
