// `portico check`: the files that hold personal data (D17) and that others can read, each with its fix.
import { opendir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');
/** Group or other bits set: someone besides the owner may read, write or enter it. */
const open = (mode: number) => (mode & 0o077) !== 0;

async function modeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (s) => s.mode,
    () => undefined,
  );
}

/** One line for each folder or file wider than 0700 / 0600 (the outbox's folders and messages counted together). */
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
  const wide = await widerInOutbox(outboxDir);
  if (wide.folders || wide.messages) {
    const what = [wide.folders && `${wide.folders} day folder${wide.folders === 1 ? '' : 's'}`, wide.messages && `${wide.messages} message${wide.messages === 1 ? '' : 's'}`]
      .filter(Boolean)
      .join(' and ');
    problems.push(`${what} in ${outboxDir} open to others: chmod -R go= ${outboxDir}`);
  }
  return problems;
}

/** The outbox's day folders and messages wider than 0700 / 0600, read a folder entry at a time (it may hold years of mail). */
async function widerInOutbox(outboxDir: string): Promise<{ folders: number; messages: number }> {
  const wide = { folders: 0, messages: 0 };
  const walk = async (path: string, depth: number) => {
    const entries = await opendir(path).catch(() => undefined);
    if (!entries) return;
    for await (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory() && depth === 0) {
        if (open((await modeOf(child)) ?? 0)) wide.folders++;
        await walk(child, 1);
      } else if (entry.isFile() && entry.name.endsWith('.eml') && open((await modeOf(child)) ?? 0)) wide.messages++;
    }
  };
  await walk(outboxDir, 0);
  return wide;
}
