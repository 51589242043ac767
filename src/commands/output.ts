// What commands write, and the error that ends one with a message and exit code 1.
export interface Output {
  line(text: string): void;
  /** Text as it is, with no line end added (CSV ends its own lines). */
  raw(text: string): void;
  /** One JSON value on one line, every control character escaped; `lead` before it (a `,` between array items). */
  json(value: unknown, lead?: string): void;
  /** Columns; control characters in cells are shown escaped. */
  table(header: string[], rows: string[][]): void;
  /**
   * Settles once the reader has taken what was written (at once when it keeps up): a long listing awaits
   * it as it goes, so a slow reader makes it wait instead of piling the output up in memory.
   */
  drained(): Promise<void> | undefined;
}

// Terminals obey C0 and C1 controls (U+009B is CSI, which starts an escape sequence): what a visitor or a
// client typed never reaches one raw. JSON.stringify escapes C0 already; DEL, C1 and the two separators
// are escaped here the same way, so the line stays valid JSON.
const NOT_ESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** A control character as the text `\\u` and its four hex digits (`\\u009b`), for output that a terminal may show. */
export const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** The text with each control character escaped, for a line that echoes what someone typed. */
export const printable = (text: string) => text.replace(CONTROLS, escaped);

export class CliError extends Error {
  override name = 'CliError';
}

/** A stream-like destination: the output waits for 'drain' when it says its buffer is full (or until it closes). */
export interface Destination {
  write(text: string): unknown;
  readonly writableNeedDrain?: boolean;
  once?(event: 'drain' | 'close', listener: () => void): unknown;
  off?(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * An Output over a stream or a write function. json() and table() escape control characters, line() and
 * raw() write text as given; drained() waits for a stream's 'drain' or 'close'.
 */
export function textOutput(destination: Destination | ((text: string) => unknown)): Output {
  const sink: Destination = typeof destination === 'function' ? { write: destination } : destination;
  const write = (text: string) => void sink.write(text);
  return {
    drained() {
      if (!sink.writableNeedDrain || !sink.once) return undefined;
      // A reader that went away (EPIPE) closes the stream: no 'drain' ever comes then.
      return new Promise<void>((resolve) => {
        const done = () => {
          sink.off?.('drain', done);
          sink.off?.('close', done);
          resolve();
        };
        sink.once!('drain', done);
        sink.once!('close', done);
      });
    },
    line: (text) => write(`${text}\n`),
    raw: write,
    json: (value, lead = '') => write(`${lead}${JSON.stringify(value).replace(NOT_ESCAPED_BY_JSON, escaped)}\n`),
    table(header, unsafe) {
      const rows = unsafe.map((row) => row.map(printable));
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => Array.from(r[i] ?? '').length)));
      const format = (cells: string[]) =>
        cells
          .map((c, i) => c + ' '.repeat(widths[i]! - Array.from(c).length))
          .join('  ')
          .trimEnd();
      write([header, ...rows].map(format).join('\n') + '\n');
    },
  };
}
