// CSV for the team's spreadsheet (RFC 4180): a header, CRLF line ends, fields quoted where they hold a
// quote, a comma or a line break. A field a visitor wrote that a spreadsheet would run as a formula is
// prefixed with ' so that it is shown instead (OWASP, "CSV Injection").
import { escaped, type Output } from './output.js';

// OWASP "CSV Injection": a cell starting with = + - @, a tab or a carriage return runs as a formula; so does
// one starting with a line feed, which spreadsheets skip as they skip the other two.
const STARTS_A_FORMULA = /^[\t\r\n]/;
// Spreadsheets also skip other leading whitespace before a formula, and read lookalike signs as the ASCII
// ones. NFKC folds the fullwidth and small forms (U+FF1D ＝, U+FF0B ＋, U+FF0D －, U+FF20 ＠, U+FE62 ﹢, ...)
// into ASCII; U+2212 MINUS SIGN it leaves alone, so it is named.
const FORMULA_SIGN = /^[=+\-@\u2212]/;
const LEADING_BLANKS = /^[\s\p{Cc}\p{Cf}]+/u;

/** Whether a spreadsheet would read `text` as a formula: a sign after any whitespace, control or format characters. */
export function runsAsFormula(text: string): boolean {
  return STARTS_A_FORMULA.test(text) || FORMULA_SIGN.test(text.normalize('NFKC').replace(LEADING_BLANKS, ''));
}

// Line breaks and tabs are data (quoted); any other control character is shown escaped, as the table
// does, so that no visitor's text reaches a terminal raw.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

function field(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value).replace(CONTROLS, escaped);
  // The cell keeps what was typed, after the quote.
  if (typeof value === 'string' && runsAsFormula(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Writes the header row at once, then one row per row() call; a field a spreadsheet would run as a formula
 * is prefixed with '. end() writes nothing.
 */
export function csvWriter<T>(out: Output, columns: [string, (row: T) => string | number | null][]): { row(row: T): void; end(): void } {
  const line = (cells: (string | number | null)[]) => out.raw(`${cells.map(field).join(',')}\r\n`);
  line(columns.map(([name]) => name));
  return { row: (row) => line(columns.map(([, value]) => value(row))), end: () => {} };
}
