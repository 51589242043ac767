// Development mail: each message written to `<dir>/<inquiry id>.eml` by nodemailer's composer, instead of sent.
import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { DkimSettings } from '../../config-mail.js';
import { MailDeliveryError, type Mailer } from '../../ports/mailer.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../private-files.js';
import { nodemailerOptions } from './nodemailer-message.js';

export function outboxMailer(dir: string, dkim?: DkimSettings): Mailer {
  const composer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    dkim: dkim && { domainName: dkim.domain, keySelector: dkim.selector, privateKey: dkim.privateKey },
  });
  // Made once, and again only after a write failed (the folder may have been removed under us).
  let folder: Promise<unknown> | undefined;
  return {
    // Writing a file does not wait on anyone: nothing to give up.
    abandon() {},
    async send(message) {
      try {
        const { message: raw } = await composer.sendMail(nodemailerOptions(message));
        await (folder ??= mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER }));
        const name = message.headers['X-Portico-Inquiry-Id'] ?? message.messageId.replace(/[^\w.-]/g, '');
        // A message holds a person's name, address and words: the owner's alone (D17).
        await writeFile(join(dir, `${name}.eml`), raw as Buffer, { mode: PRIVATE_FILE });
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

/** Removes the outbox copies (`<dir>/<inquiry id>.eml`) of these inquiries; a missing file is no error. */
export async function removeOutboxCopies(dir: string, ids: readonly string[]): Promise<void> {
  // Ids are UUIDs the server made; the check keeps a corrupted row from naming a path outside `dir`.
  await Promise.all(ids.filter((id) => /^[\w-]+$/.test(id)).map((id) => rm(join(dir, `${id}.eml`), { force: true })));
}
