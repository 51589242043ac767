// The CLI's writer: tables and JSON lines never carry a raw control character to the terminal.
import { describe, expect, it } from 'vitest';
import { textOutput } from './output.js';

const written = (use: (out: ReturnType<typeof textOutput>) => void) => {
  let text = '';
  use(textOutput((chunk) => (text += chunk)));
  return text;
};

describe('textOutput', () => {
  it('shows C0, DEL and C1 controls in table cells as \\u escapes, keeping the columns aligned', () => {
    const text = written((out) =>
      out.table(
        ['A', 'B'],
        [
          ['x\u009b31m', 'y'],
          ['\u001b[2J\u007f', 'z'],
        ],
      ),
    );
    expect(text).toBe(`A${' '.repeat(16)}B\nx\\u009b31m${' '.repeat(7)}y\n\\u001b[2J\\u007f  z\n`);
  });

  it('writes JSON lines with DEL, C1 and the line separators escaped, still parsing to the same value', () => {
    const value = { message: 'a\u0085b\u009bc\u2028d\u007f\n' };
    const text = written((out) => out.json(value));
    expect(text).not.toMatch(/[\u007f-\u009f\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
