// CSV for the team's spreadsheet (RFC 4180): a header, CRLF line ends, fields quoted where they hold a
// quote, a comma or a line break. A field a visitor wrote that starts like a formula (= + - @, or a tab
// or CR before one) is prefixed with ' so that a spreadsheet shows it instead of running it (OWASP,
// "CSV Injection").
import { escaped, type Output } from './output.js';

const FORMULA = /^[=+\-@\t\r]/;
// Line breaks and tabs are data (quoted); any other control character is shown escaped, as the table
// does, so that no visitor's text reaches a terminal raw.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

function field(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value).replace(CONTROLS, escaped);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
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
