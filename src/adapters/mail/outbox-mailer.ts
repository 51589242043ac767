// Development mail: each message written to `<dir>/<day>/<inquiry id>.eml` by nodemailer's composer,
// instead of sent. A folder a day (UTC, from the UUID v7 id's time): ext4 makes a file in a folder of
// hundreds of thousands far more slowly than in a small one, and the contact path makes one per inquiry.
import { constants } from 'node:fs';
import { access, mkdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import nodemailer from 'nodemailer';
import type { DkimSettings } from '../../config/mail.js';
import { MailDeliveryError, type Mailer } from '../../ports/mailer.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../private-files.js';
import { nodemailerOptions } from './nodemailer-message.js';

/**
 * A Mailer that writes each message, DKIM-signed when `dkim` is given, to `<dir>/<day>/<inquiry id>.eml`,
 * the owner's alone; a failed write rejects with MailDeliveryError. verify() makes `dir` and checks that
 * it is writable.
 */
export function outboxMailer(dir: string, dkim?: DkimSettings): Mailer {
  const composer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    dkim: dkim && { domainName: dkim.domain, keySelector: dkim.selector, privateKey: dkim.privateKey },
  });
  // The latest day's folder, made once, and again after a write failed (it may have been removed under us).
  let folder: { path: string; made: Promise<unknown> } | undefined;
  return {
    // Writing a file does not wait on anyone: nothing to give up.
    abandon() {},
    async send(message) {
      try {
        const { message: raw } = await composer.sendMail(nodemailerOptions(message));
        // The Message-ID's left part: `<inquiry id>` for the team's message, `<inquiry id>.ack` for the
        // acknowledgement, whatever MAIL_FROM's domain, so that removal knows both names.
        const name = message.headers['X-Portico-Inquiry-Id'] ?? message.messageId.replace(/^<|@.*$/g, '').replace(/[^\w.-]/g, '');
        const path = copyPath(dir, name);
        const parent = dirname(path);
        const makeFolder = () => mkdir(parent, { recursive: true, mode: PRIVATE_FOLDER });
        if (folder?.path !== parent) folder = { path: parent, made: makeFolder() };
        await folder.made;
        // A message holds a person's name, address and words: the owner's alone (D17).
        const write = () => writeFile(path, raw as Buffer, { mode: PRIVATE_FILE });
        // A purge removes a day's folder once it has emptied it, perhaps just after it was made here.
        await write().catch(async (error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          await makeFolder();
          await write();
        });
        return `written to ${relative(dir, path)}`;
      } catch (error) {
        folder = undefined;
        throw new MailDeliveryError(`outbox: ${(error as Error).message}`);
      }
    },
    async verify() {
      await mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER });
      await access(dir, constants.W_OK);
    },
    async close() {},
  };
}

/**
 * Removes the outbox copies of these inquiries: the team's message (`<id>.eml`) and the acknowledgement to
 * the sender (`<id>.ack.eml`), whose `To:` holds the person's name and address; a missing file is no error.
 */
export async function removeOutboxCopies(dir: string, ids: readonly string[]): Promise<void> {
  const days = new Set<string>();
  // One at a time: unlinks run on libuv's threads, and a thousand at once would take the serving
  // node's core from its event loop (the retention job runs in the node).
  for (const id of ids) {
    // Ids are UUIDs the server made; the check keeps a corrupted row from naming a path outside `dir`.
    if (!/^[\w-]+$/.test(id)) continue;
    const path = copyPath(dir, id);
    const day = dirname(path);
    // unlink, not rm: rm looks at each path first, a second system call for a file known to be one.
    const removed = await unlink(path).then(() => true, missingIsGone);
    await unlink(copyPath(dir, `${id}.ack`)).catch(missingIsGone);
    if (day === dir) continue;
    days.add(day);
    // A copy written before the outbox had a folder a day is at its top.
    if (!removed) await unlink(join(dir, `${id}.eml`)).catch(missingIsGone);
  }
  // Day folders left empty go too; one still holding mail stays (ENOTEMPTY).
  await Promise.all([...days].map((day) => rmdir(day).catch(() => {})));
}

const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7/;

/** `<dir>/<YYYY-MM-DD>/<name>.eml` for an inquiry's UUID v7 (RFC 9562 section 5.7: its first 48 bits are Unix ms); `<dir>/<name>.eml` for any other name. */
export function copyPath(dir: string, name: string): string {
  const time = UUID_V7.exec(name);
  if (!time) return join(dir, `${name}.eml`);
  const day = new Date(Number.parseInt(`${time[1]}${time[2]}`, 16)).toISOString().slice(0, 10);
  return join(dir, day, `${name}.eml`);
}

/** False for a file that was not there; the error for any other failure. */
function missingIsGone(error: NodeJS.ErrnoException): false {
  if (error.code !== 'ENOENT') throw error;
  return false;
}
