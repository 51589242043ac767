// The development outbox as a test reads it: the names of the messages in it, whatever day folder holds them.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

/** `<inquiry id>.eml` for every message under `dir`, sorted; none when the folder does not exist. */
export function outboxMessages(dir: string): string[] {
  return outboxFiles(dir)
    .map((path) => basename(path))
    .sort();
}

/** The path of every message under `dir`, whatever day folder holds it; none when the folder does not exist. */
export function outboxFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries.filter((path) => path.endsWith('.eml')).map((path) => join(dir, path));
}

/** Where the outbox keeps an inquiry's message: the folder of the day (UTC) it was received. */
export const outboxPath = (dir: string, inquiry: { id: string; createdAt: number }) => join(dir, new Date(inquiry.createdAt).toISOString().slice(0, 10), `${inquiry.id}.eml`);
