// `portico check`: the files that hold personal data (D17) and that others can read, each with its fix.
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');
/** Group or other bits set: someone besides the owner may read, write or enter it. */
const open = (mode: number) => (mode & 0o077) !== 0;

async function modeOf(path: string): Promise<number | undefined> {
  return stat(path).then((s) => s.mode, () => undefined);
}

/** One line for each folder or file wider than 0700 / 0600 (the outbox's messages counted together). */
export async function openToOthers(databasePath: string | undefined, outboxDir: string | undefined): Promise<string[]> {
  const problems: string[] = [];
  const folder = async (path: string) => {
    const mode = await modeOf(path);
    if (mode !== undefined && open(mode)) problems.push(`${path} is ${octal(mode)}: chmod 700 ${path}`);
  };
  const file = async (path: string) => {
    const mode = await modeOf(path);
    if (mode !== undefined && open(mode)) problems.push(`${path} is ${octal(mode)}: chmod 600 ${path}`);
  };
  if (databasePath !== undefined) {
    await folder(dirname(databasePath));
    for (const suffix of ['', '-wal', '-shm']) await file(`${databasePath}${suffix}`);
  }
  if (outboxDir === undefined) return problems;
  await folder(outboxDir);
  const messages = await readdir(outboxDir).catch(() => [] as string[]);
  let wide = 0;
  for (const name of messages) if (name.endsWith('.eml') && open((await modeOf(join(outboxDir, name))) ?? 0)) wide++;
  if (wide) problems.push(`${wide} message${wide === 1 ? '' : 's'} in ${outboxDir} readable by others: chmod 600 ${join(outboxDir, '*.eml')}`);
  return problems;
}
