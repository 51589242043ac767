// What commands write, and the error that ends one with a message and exit code 1.
export interface Output {
  line(text: string): void;
  /** Text as it is, with no line end added (CSV ends its own lines). */
  raw(text: string): void;
  /** One JSON document on one line, every control character escaped. */
  json(value: unknown): void;
  /** Columns; control characters in cells are shown escaped. */
  table(header: string[], rows: string[][]): void;
}

// Terminals obey C0 and C1 controls (U+009B is CSI, which starts an escape sequence): what a visitor or a
// client typed never reaches one raw. JSON.stringify escapes C0 already; DEL, C1 and the two separators
// are escaped here the same way, so the line stays valid JSON.
const NOT_ESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** A control character as the text `\\uXXXX`, for output that a terminal may show. */
export const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export class CliError extends Error {
  override name = 'CliError';
}

export function textOutput(write: (text: string) => void): Output {
  return {
    line: (text) => write(`${text}\n`),
    raw: write,
    json: (value) => write(`${JSON.stringify(value).replace(NOT_ESCAPED_BY_JSON, escaped)}\n`),
    table(header, unsafe) {
      const rows = unsafe.map((row) => row.map((cell) => cell.replace(CONTROLS, escaped)));
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
      const format = (cells: string[]) => cells.map((c, i) => c + ' '.repeat(widths[i]! - [...c].length)).join('  ').trimEnd();
      write([header, ...rows].map(format).join('\n') + '\n');
    },
  };
}
