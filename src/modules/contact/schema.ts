// The ContactRequest and ContactResponse messages (contract section 2), the single source for all uses.
import * as z from 'zod';
import { LOCALES } from '../common/locales.js';
import { TOPICS } from '../common/topics.js';

// Characters, as the contract and JSON Schema count them: code points, not UTF-16 units. A string of at
// most `max` UTF-16 units is within the limit whatever it holds, so only longer ones are counted.
const atMostCharacters = (value: string, max: number) => value.length <= max || codePoints(value) <= max;
const codePoints = (value: string) => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};
// No C0/C1 controls and no line or paragraph separators in single-line fields (header safety).
const SINGLE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/u;
// Multi-line text keeps tabs and line breaks; other C0 controls (NUL among them) are never prose.
const PROSE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u;
// An address a mail server will route: dot-atom local part, a domain of letter/digit labels (IDN allowed).
const EMAIL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}(?<!\.)@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}[\p{L}\p{N}-]{0,62}$/u;
// The same rule as the schemas publish it, in the subset of regular expressions that JSON Schema validators
// share: ECMA-262 with and without the u flag, and Python's re (`\p{L}` is a syntax error there, and an
// unknown escape without the u flag). A letter or digit of a domain label is [A-Za-z0-9] or any non-ASCII
// character, a class that matches a character outside the BMP whole with the u flag and each of its
// surrogates without, so the verdicts agree. Looser where the subset cannot say it (the scripts of the
// letters, 64 and 63 character parts): EMAIL, above, decides. Python's `$` also matches before a final
// line break; the lookahead after it makes it the end of the string in both.
const LOCAL_ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const ALNUM = String.raw`[^\x00-\x2F\x3A-\x40\x5B-\x60\x7B-\x7F]`;
const ALNUM_OR_HYPHEN = String.raw`[^\x00-\x2C\x2E\x2F\x3A-\x40\x5B-\x60\x7B-\x7F]`;
const LETTER = String.raw`[^\x00-\x40\x5B-\x60\x7B-\x7F]`;
export const PORTABLE_EMAIL_PATTERN = String.raw`^${LOCAL_ATOM}(?:\.${LOCAL_ATOM})*@(?:${ALNUM}(?:${ALNUM_OR_HYPHEN}*${ALNUM})?\.)+${LETTER}${ALNUM_OR_HYPHEN}*$(?!\n)`;

// Leading and trailing white space is dropped from single-line fields before they are checked and kept
// ("  Ana  " is "Ana"): it is never meant, and it would be echoed in the mail and its subject.
const text = (max: number, what: string, trim = false) =>
  (trim ? z.string({ error: `${what} must be a string` }).trim() : z.string({ error: `${what} must be a string` }))
    .refine((value) => value.trim().length > 0, `${what} must not be empty`)
    .refine((value) => atMostCharacters(value, max), `${what} must be at most ${max} characters`)
    .meta({ minLength: 1, maxLength: max });

export const ContactRequest = z
  .strictObject(
    {
      name: text(120, 'name', true).refine((value) => SINGLE_LINE.test(value), 'name must be a single line without control characters'),
      email: z
        .string({ error: 'email must be a string' })
        .trim()
        .max(254, 'email must be at most 254 characters')
        .refine((value) => EMAIL.test(value), 'email must be a valid e-mail address')
        .meta({ format: 'email', maxLength: 254, pattern: PORTABLE_EMAIL_PATTERN }),
      message: text(5000, 'message').refine((value) => PROSE.test(value), 'message must not contain control characters other than tabs and line breaks'),
      locale: z.enum(LOCALES, { error: `locale must be one of ${LOCALES.join(', ')}` }).default('es'),
      privacy: z.literal(true, { error: 'privacy must be true (the privacy policy must be accepted)' }),
      topic: z
        .enum(TOPICS, { error: `topic must be one of ${TOPICS.join(', ')}` })
        .optional()
        .describe('What the inquiry is about; it routes it to the team that answers it. Absent: a general inquiry.'),
      consentText: text(1000, 'consentText', true)
        .refine((value) => SINGLE_LINE.test(value), 'consentText must be a single line without control characters')
        .optional()
        .describe(
          "The consent words shown beside the privacy checkbox, as the person saw them: their SHA-256 is kept with the inquiry as the record of what was accepted. Absent: the words docs/contact.md gives for the inquiry's locale.",
        ),
      turnstileToken: z.string({ error: 'turnstileToken must be a string' }).max(2048, 'turnstileToken must be at most 2048 characters').optional(),
      website: z.string({ error: 'website must be a string' }).max(2048, 'website must be at most 2048 characters').optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field: ${issue.keys.join(', ')}` : 'the body must be a JSON object') },
  )
  .meta({
    id: 'ContactRequest',
    examples: [
      { name: 'Ana García', email: 'ana@example.com', message: 'We manage 40 buildings and would like a demo.', locale: 'es', topic: 'demo', privacy: true, turnstileToken: 'XXXX.DUMMY.TOKEN.XXXX' },
    ],
    description:
      'A sales, demo or support inquiry. `name` and `email` are trimmed of leading and trailing white space before they are checked. `turnstileToken` is required from browsers when Turnstile is enabled; `website` is a honeypot left empty.',
  });
export type ContactRequest = z.output<typeof ContactRequest>;

export const ContactResponse = z.object({ ok: z.boolean(), error: z.string().optional() }).meta({ id: 'ContactResponse', examples: [{ ok: true }] });
