// A MailMessage as nodemailer's message options: its composer writes the MIME (RFC 5322, 2045, 2047).
import type { Address } from 'nodemailer/lib/mailer';
import type Mail from 'nodemailer/lib/mailer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import type { MailAddress } from '../../config/config.js';
import type { MailMessage } from '../../ports/mailer.js';

// A word that begins with "=?" is read as an RFC 2047 encoded-word by mail clients, even in a quoted
// string: "=?UTF-8?B?QWRtaW4gPGFkbWluQGJhbmsuZXhhbXBsZT4=?=" typed as a name shows as
// "Admin <admin@bank.example>". nodemailer passes a well-formed one through as it is; such text is
// encoded whole instead, so it reads back as exactly what was typed (RFC 2047 section 5). nodemailer
// quotes an ASCII display name: readers that decode inside quotes (mailparser, Python, Thunderbird)
// show the typed text, strict ones the encoding; none shows the forged one.
const ENCODED_WORD_LOOKALIKE = /(?:^|\s)=\?/;
// RFC 2047 section 2: an encoded-word is at most 75 characters; 52 leaves room for the field name.
const WORD_LENGTH = 52;

/**
 * The message as nodemailer's options. A subject or Reply-To name that mail clients would read as an
 * RFC 2047 encoded-word is encoded whole, so that it shows as typed.
 */
export function nodemailerOptions(message: MailMessage): Mail.Options {
  const headers: Mail.Headers = { ...message.headers };
  const options: Mail.Options = {
    from: address(message.from),
    to: address(message.to),
    messageId: message.messageId,
    date: message.date,
    text: message.text,
    headers,
  };
  if (ENCODED_WORD_LOOKALIKE.test(message.subject)) headers.Subject = prepared(encodeWord(message.subject, 'B', WORD_LENGTH));
  else options.subject = message.subject;
  const { name } = message.replyTo;
  options.replyTo = { name: ENCODED_WORD_LOOKALIKE.test(name) ? encodeWord(name, 'B', WORD_LENGTH) : name, address: message.replyTo.address };
  return options;
}

const address = ({ name, address }: MailAddress): Address => ({ name, address });

/** A value nodemailer writes as given, folded at its spaces (the encoded words' separators). */
const prepared = (value: string) => ({ prepared: true, foldLines: true, value });
