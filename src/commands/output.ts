// What commands write, and the error that ends one with a message and exit code 1.
export interface Output {
  line(text: string): void;
  table(header: string[], rows: string[][]): void;
}

export class CliError extends Error {
  override name = 'CliError';
}

export function textOutput(write: (text: string) => void): Output {
  return {
    line: (text) => write(`${text}\n`),
    table(header, rows) {
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
      const format = (cells: string[]) => cells.map((c, i) => c + ' '.repeat(widths[i]! - [...c].length)).join('  ').trimEnd();
      write([header, ...rows].map(format).join('\n') + '\n');
    },
  };
}
