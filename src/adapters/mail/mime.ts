// One plain-text message as RFC 5322 + MIME bytes, built directly: nodemailer's composer spent about
// 220 us of CPU per message on this (docs/performance.md); the SMTP pool still sends it.
import { domainToASCII } from 'node:url';
import type { MailAddress } from '../../config.js';
import type { MailMessage } from '../../ports/mailer.js';

export interface ComposedMail {
  /** SMTP envelope (RFC 5321): the addresses with IDN domains in their ASCII form. */
  envelope: { from: string; to: string[] };
  messageId: string;
  raw: string;
}

const CRLF = '\r\n';
// RFC 2047 section 2: an encoded-word is at most 75 characters. 39 bytes make 52 in base64, 64 with
// "=?UTF-8?B?" and "?=": a first line with "Reply-To: " stays within 78 (RFC 5322 section 2.1.1).
const ENCODED_WORD_BYTES = 39;
// RFC 5322 section 3.2.3: atoms (atext) separated by single spaces form a phrase as they are;
// other printable ASCII goes in a quoted-string (section 3.2.4).
const ATOMS = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+( [A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
const QUOTABLE = /^[\x20-\x7e]*$/;
// A header value of printable ASCII that fits on a line is written as it is.
const PLAIN_TEXT = /^[\x20-\x7e]{0,900}$/;

// RFC 5322 section 2.2: a field name is printable ASCII but the colon; a line break would end the
// header section.
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const LINE_BREAK = /[\r\n]/;

export function composeMime(message: MailMessage, options: { messageId: string; date: Date }): ComposedMail {
  let extra = '';
  for (const name in message.headers) {
    const value = message.headers[name]!;
    // Our own headers, but never written unchecked.
    if (!FIELD_NAME.test(name) || LINE_BREAK.test(value)) throw new Error(`unsafe header ${JSON.stringify(name)}`);
    extra += `${name}: ${value}${CRLF}`;
  }
  const from = mailbox(message.from.address);
  const to = mailbox(message.to.address);
  const body = encodeBody(message.text);
  const raw =
    `From: ${address(message.from.name, from)}${CRLF}` +
    `To: ${address(message.to.name, to)}${CRLF}` +
    `Reply-To: ${address(message.replyTo.name, mailbox(message.replyTo.address))}${CRLF}` +
    `Subject: ${text(message.subject)}${CRLF}` +
    `Date: ${rfc5322Date(options.date)}${CRLF}` +
    `Message-ID: ${options.messageId}${CRLF}` +
    `MIME-Version: 1.0${CRLF}${extra}` +
    `Content-Type: text/plain; charset=utf-8${CRLF}` +
    `Content-Transfer-Encoding: ${body.encoding}${CRLF}${CRLF}${body.text}`;
  return { envelope: { from, to: [to] }, messageId: options.messageId, raw };
}

// The same few domains recur (ours, the team's, common mail providers): their ASCII forms are kept.
const ASCII_DOMAINS = new Map<string, string>();

/** The domain's ASCII (punycode) form (RFC 5890); empty when it is not a valid domain. */
export function asciiDomain(domain: string): string {
  let ascii = ASCII_DOMAINS.get(domain);
  if (ascii === undefined) {
    ascii = domainToASCII(domain);
    if (ASCII_DOMAINS.size >= 1000) ASCII_DOMAINS.clear();
    ASCII_DOMAINS.set(domain, ascii);
  }
  return ascii;
}

// A local part that needs no quoting in a header or an envelope (RFC 5321 section 4.1.2, dot-string).
const LOCAL_PART = /^[\x21-\x7e]+$/;
const LOCAL_PART_SPECIALS = /[<>"\\,;:@\s]/;

/** `local@domain` with the domain in its ASCII (punycode) form (RFC 5890). */
function mailbox(addr: string): string {
  const at = addr.lastIndexOf('@');
  const local = addr.slice(0, at);
  // Addresses are validated before they get here; this guards the header and the envelope anyway.
  if (at < 1 || !LOCAL_PART.test(local) || LOCAL_PART_SPECIALS.test(local)) throw new Error('unsafe address');
  const domain = asciiDomain(addr.slice(at + 1));
  if (!domain) throw new Error('unsafe address');
  return `${local}@${domain}`;
}

/** RFC 5322 section 3.4 name-addr: the display name quoted, or as encoded-words when not ASCII. */
function address(name: MailAddress['name'], mailboxAddress: string): string {
  const box = `<${mailboxAddress}>`;
  if (!name) return box;
  if (name.length <= 60 && ATOMS.test(name)) return `${name} ${box}`;
  if (name.length <= 60 && QUOTABLE.test(name)) return `"${name.replace(/["\\]/g, '\\$&')}" ${box}`;
  // RFC 2047 section 5 (3): encoded-words may stand for a phrase; the submitter's name is never parsed.
  return `${encodedWords(name)}${CRLF} ${box}`;
}

/** An unstructured header value (RFC 5322 section 3.2.5): as it is, or as folded encoded-words. */
function text(value: string): string {
  return PLAIN_TEXT.test(value) && value.length <= 70 ? value : encodedWords(value);
}

/** RFC 2047 B-encoding in words of whole characters, folded one word per line. */
function encodedWords(value: string): string {
  // The usual name or subject fits in one word.
  if (value && Buffer.byteLength(value) <= ENCODED_WORD_BYTES) return `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`;
  const words: string[] = [];
  let chunk = '';
  let bytes = 0;
  for (const character of value) {
    const size = Buffer.byteLength(character);
    if (bytes + size > ENCODED_WORD_BYTES) {
      words.push(chunk);
      chunk = '';
      bytes = 0;
    }
    chunk += character;
    bytes += size;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`).join(`${CRLF} `);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** RFC 5322 section 3.3, in UTC: `Mon, 23 Nov 2026 12:00:00 +0000`. */
function rfc5322Date(date: Date): string {
  return `${DAYS[date.getUTCDay()]}, ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/**
 * 7bit when the text is ASCII without a bare CR and no line passes 998 characters (RFC 5322 section
 * 2.1.1), with CRLF line ends; otherwise base64.
 */
function encodeBody(value: string): { encoding: '7bit' | 'base64'; text: string } {
  if (!NOT_7BIT.test(value) && !hasLongLine(value)) return { encoding: '7bit', text: value.replace(LINE_END, CRLF) };
  return { encoding: 'base64', text: base64Body(value) };
}

// Outside 7bit: a character above 127, or a CR not followed by LF.
const NOT_7BIT = /[^\x00-\x7f]|\r(?!\n)/;
const LINE_END = /\r?\n/g;

/** Whether a line (between LF or CRLF ends) passes 998 characters; one pass, unlike a regular expression's retries. */
function hasLongLine(value: string): boolean {
  for (let start = 0; ; ) {
    const end = value.indexOf('\n', start);
    const stop = end === -1 ? value.length : end;
    if (stop - start - (stop > start && value.charCodeAt(stop - 1) === 13 ? 1 : 0) > 998) return true;
    if (end === -1) return false;
    start = end + 1;
  }
}

/** base64 in lines of 76 characters (RFC 2045 section 6.8). */
function base64Body(value: string): string {
  const encoded = Buffer.from(value.replace(LINE_END, CRLF)).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join(CRLF);
}
