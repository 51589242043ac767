// The consent words docs/contact.md gives API clients, and their digests, are the ones the forms show and
// a consent record names; and its "Topics" filter is on the header the team's e-mail carries.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../src/modules/common/locales.js';
import { TOPICS } from '../../src/modules/common/topics.js';
import { consentTextSha256, consentWords } from '../../src/modules/contact/consent.js';
import { TOPIC_HEADER } from '../../src/modules/contact/email.js';
import { ROOT, section } from './shell-blocks.js';

const contact = () => readFile(`${ROOT}docs/contact.md`, 'utf8');

describe('docs/contact.md on consent and topics', () => {
  it("lists every locale's consent words and their SHA-256, as the forms show them and a record names them", async () => {
    const rows = [...section(await contact(), 'Consent').matchAll(/^\| `([a-z]{2})` \| ([^|]+) \| `([0-9a-f]{64})` \|$/gm)];
    const documented = Object.fromEntries(rows.map(([, locale, words, digest]) => [locale, { words, digest }]));
    const product = Object.fromEntries(LOCALES.map((locale) => [locale, { words: consentWords(locale), digest: consentTextSha256(consentWords(locale)) }]));
    expect(documented).toEqual(product);
  });

  it('routes each topic by its MAIL_TO_ setting, and filters on the header the e-mail carries', async () => {
    const topics = section(await contact(), 'Topics');
    for (const topic of TOPICS) expect(topics).toContain(`| \`${topic}\` | \`MAIL_TO_${topic.toUpperCase()}\`, else \`MAIL_TO\` | \`[${topic}] `);
    expect(topics).toContain(`if header :is "${TOPIC_HEADER}" "demo"`);
  });
});
