// The development outbox: a folder a day, so that no folder grows with years of mail, and copies
// removed with their inquiries wherever they were written.
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outboxMailer, removeOutboxCopies } from '../../src/adapters/mail/outbox-mailer.js';
import { uuidV7, cryptoRandom } from '../../src/ports/random.js';
import { mailMessage } from '../support/mail-message.js';
import { outboxMessages } from '../support/outbox.js';

const received = (iso: string) => uuidV7(Date.parse(iso), cryptoRandom);
const inquiryMail = (id: string) => mailMessage({ headers: { 'X-Portico-Inquiry-Id': id } });

describe('the outbox mailer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'portico-outbox-')), 'outbox');
  });
  afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

  it('writes each inquiry to the folder of the day (UTC) it was received, named by its id', async () => {
    const [late, early] = [received('2026-11-24T23:59:59.999Z'), received('2026-11-25T00:00:00.000Z')];
    const mailer = outboxMailer(dir);
    for (const id of [late, early]) await mailer.send(inquiryMail(id));
    expect(await readdir(dir)).toEqual(['2026-11-24', '2026-11-25']);
    expect(await readdir(join(dir, '2026-11-24'))).toEqual([`${late}.eml`]);
    expect(await readdir(join(dir, '2026-11-25'))).toEqual([`${early}.eml`]);
  });

  it('makes the day folder again when it was removed after its first message', async () => {
    const mailer = outboxMailer(dir);
    await mailer.send(inquiryMail(received('2026-11-25T10:00:00Z')));
    await rm(join(dir, '2026-11-25'), { recursive: true });
    const next = received('2026-11-25T11:00:00Z');
    await mailer.send(inquiryMail(next));
    expect(outboxMessages(dir)).toEqual([`${next}.eml`]);
  });

  it('removes the copies of the inquiries asked for, copies written before day folders too, and the day folders emptied', async () => {
    const [gone, kept, flat] = ['2026-11-23T08:00:00Z', '2026-11-24T08:00:00Z', '2026-11-24T09:00:00Z'].map(received) as [string, string, string];
    const mailer = outboxMailer(dir);
    for (const id of [gone, kept, flat]) await mailer.send(inquiryMail(id));
    await rename(join(dir, '2026-11-24', `${flat}.eml`), join(dir, `${flat}.eml`));
    await mkdir(join(dir, '2026-11-22'));
    await writeFile(join(dir, 'notes.txt'), 'not mail');

    await removeOutboxCopies(dir, [gone, flat, received('2026-11-21T00:00:00Z')]);
    expect(outboxMessages(dir)).toEqual([`${kept}.eml`]);
    // Only the folders the removal emptied go.
    expect((await readdir(dir)).sort()).toEqual(['2026-11-22', '2026-11-24', 'notes.txt']);
  });
});
