// The CSV writer: what a visitor typed reaches the spreadsheet as text, never as a formula (OWASP, "CSV Injection").
import { describe, expect, it } from 'vitest';
import { csvWriter, runsAsFormula } from './csv.js';
import { textOutput } from './output.js';

/** The CSV of one column `cell` holding `values`, without its header, one line each. */
function cells(...values: (string | number)[]): string[] {
  let text = '';
  const writer = csvWriter<string | number>(
    textOutput((chunk) => (text += chunk)),
    [['cell', (value) => value]],
  );
  for (const value of values) writer.row(value);
  return text.split('\r\n').slice(1, -1);
}

describe('the CSV writer', () => {
  it('prefixes with a quote a cell starting with = + - @, a tab, a carriage return or a line feed', () => {
    expect(cells('=1+1', '+1 call me', '-2', '@SUM(A1)', '\t=1', '\r=1', '\n=1')).toEqual(["'=1+1", "'+1 call me", "'-2", "'@SUM(A1)", "'\t=1", '"\'\r=1"', '"\'\n=1"']);
  });

  it('prefixes a sign after leading spaces, no-break and ideographic spaces, zero-width characters and line feeds', () => {
    expect(cells(' =HYPERLINK("x")', '   +1', '\u00a0=1', '\u3000=1', '\u200b=1', '\ufeff@x')).toEqual([`"' =HYPERLINK(""x"")"`, "'   +1", "'\u00a0=1", "'\u3000=1", "'\u200b=1", "'\ufeff@x"]);
  });

  it('prefixes the fullwidth, small and other lookalike forms of the signs', () => {
    expect(cells('\uff1d1+1', '\uff0b1', '\uff0d1', '\uff20SUM(A1)', '\ufe62\ufe66', '\u22121', ' \uff1d1')).toEqual([
      "'\uff1d1+1",
      "'\uff0b1",
      "'\uff0d1",
      "'\uff20SUM(A1)",
      "'\ufe62\ufe66",
      "'\u22121",
      "' \uff1d1",
    ]);
  });

  it('keeps every other cell as typed, numbers included', () => {
    expect(cells('Ana García', ' leading space', 'a=b', 'x@example.com', -5, '')).toEqual(['Ana García', ' leading space', 'a=b', 'x@example.com', '-5', '']);
  });
});

describe('runsAsFormula', () => {
  it('sees a sign behind blanks and controls, and nothing in plain text', () => {
    expect([' \n =1', '\u2028+1', 'plain', '1-2', '\u00a0text'].map(runsAsFormula)).toEqual([true, true, false, false, false]);
  });
});
