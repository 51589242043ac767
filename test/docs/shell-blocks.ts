// The `sh` blocks of a Markdown document, the reason given for any that a test cannot run here, and its sections.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ShellBlock {
  file: string;
  /** The line the block's fence opens on, for messages. */
  line: number;
  code: string;
  /** Set by `<!-- not run: reason -->` on the line before the fence: a block that needs Docker, systemd, a real relay. */
  notRun?: string;
}

const BLOCK = /(?:<!-- not run: ([^\n]*?) -->\n)?```sh\n([\s\S]*?)```/g;

export function shellBlocks(file: string): ShellBlock[] {
  const text = readFileSync(ROOT + file, 'utf8');
  return [...text.matchAll(BLOCK)].map((match) => ({
    file,
    line: text.slice(0, match.index).split('\n').length + (match[1] === undefined ? 0 : 1),
    code: match[2]!,
    ...(match[1] !== undefined && { notRun: match[1] }),
  }));
}

/** README, CONTRIBUTING and every page of docs/: what a reader may paste. */
export function documents(): string[] {
  const docs = readdirSync(ROOT + 'docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** The blocks a test runs: those without a reason not to. */
export const runnable = (file: string): ShellBlock[] => shellBlocks(file).filter((block) => block.notRun === undefined);

/** The text of a `## heading` section of a Markdown document, up to the next `## ` heading. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}
