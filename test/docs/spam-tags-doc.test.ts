// The subject tag of a marked inquiry, as README and docs/contact.md promise it in each locale, is the one
// the team's e-mail carries; and both give the filter that works in every language, on the header.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../src/modules/common/locales.js';
import { SPAM_REASONS_HEADER } from '../../src/modules/contact/email.js';
import { TEAM_EMAIL } from '../../src/modules/contact/email-i18n.js';
import { ROOT, section } from './shell-blocks.js';

const TAGS = Object.fromEntries(LOCALES.map((locale) => [locale, TEAM_EMAIL[locale].possibleSpam]));

describe('the documented marks of a possible spam', () => {
  it("lists every locale's subject tag in docs/contact.md's table, as the e-mail writes it, and a Sieve rule on the header", async () => {
    const screening = section(await readFile(`${ROOT}docs/contact.md`, 'utf8'), 'Screening');
    const rows = [...screening.matchAll(/^\| `([a-z]{2})`[^|]* \| `(\[[^`]+\])` \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(TAGS);
    expect(screening).toContain(`if exists "${SPAM_REASONS_HEADER}"`);
  });

  it("lists every locale's subject tag in README's SPAM_HOLD row, and the header to filter on", async () => {
    const row = section(await readFile(`${ROOT}README.md`, 'utf8'), 'Configuration')
      .split('\n')
      .find((line) => line.startsWith('| `SPAM_HOLD` |'))!;
    const pairs = [...row.matchAll(/`([a-z]{2})`: `(\[[^`]+\])`/g)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(pairs)).toEqual(TAGS);
    expect(row).toContain(`if exists "${SPAM_REASONS_HEADER}"`);
  });
});
