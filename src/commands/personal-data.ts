// `portico inquiries export|erase`: one person's inquiries, for a request of access and portability
// (GDPR Art. 15, 20) or of erasure (Art. 17). The address matches however its case or its domain's
// Unicode form was typed (normalize-email.ts). What is erased is logged by count and id only.
import type { Deps } from '../deps.js';
import { forgetInquiries } from '../modules/contact/forget.js';
import type { InquiryFilter } from '../ports/inquiry-store.js';
import { normalizeEmail } from '../ports/normalize-email.js';
import { eachInquiry } from './inquiry-pages.js';
import { CliError, printable, type Output } from './output.js';

/**
 * A JSON document of every inquiry sent from the address, all that is stored of each, on `out`; on
 * `notes`, how many matched and the form they were compared in, kept apart from the document.
 */
export async function exportInquiries(deps: Deps, out: Output, notes: Output, options: { email?: string }): Promise<void> {
  if (!options.email) throw new CliError('usage: portico inquiries export --email ADDRESS');
  await deps.inquiries.fillNormalizedEmails();
  let count = 0;
  out.line(`{"email":${JSON.stringify(options.email)},"exportedAt":"${new Date(deps.clock.now()).toISOString()}","inquiries":[`);
  for await (const inquiry of eachInquiry(deps.inquiries, { email: options.email })) {
    const { createdAt, attemptedAt, sentAt, webhookAt, nextAttemptAt, releasedAt, consent, ...rest } = inquiry;
    const dates = { createdAt, attemptedAt, sentAt, webhookAt, nextAttemptAt, releasedAt };
    const readable = Object.fromEntries(Object.entries(dates).map(([key, ms]) => [key, ms === null ? null : new Date(ms).toISOString()]));
    // GDPR Art. 7(1): what shows the consent was given, and to what (docs/storage.md, "Consent").
    const record = consent && { givenAt: new Date(consent.at).toISOString(), door: consent.door, assertedBy: inquiry.clientId, policyUrl: consent.policyUrl, textSha256: consent.textSha256 };
    out.json({ ...rest, ...readable, consent: record }, count++ ? ',' : '');
    await out.drained();
  }
  out.line(']}');
  notes.line(`${noun(count)} matched ${printable(options.email)} (compared as ${printable(normalizeEmail(options.email))})`);
}

/** Deletes the inquiries of an address (or one by id) with their outbox copies; --dry-run lists them first. */
export async function eraseInquiries(deps: Deps, out: Output, options: { email?: string; id?: string; dryRun?: boolean }): Promise<void> {
  if ((options.email === undefined) === (options.id === undefined)) throw new CliError('usage: portico inquiries erase --email ADDRESS | --id ID [--dry-run]');
  const filter: InquiryFilter = options.email !== undefined ? { email: options.email } : { id: options.id! };
  if (options.email !== undefined) await deps.inquiries.fillNormalizedEmails();
  if (options.dryRun) {
    let found = 0;
    for await (const id of matchingIds(deps, options)) {
      found++;
      out.line(`would erase inquiry ${id}`);
      await out.drained();
    }
    return out.line(`would erase ${noun(found)}, with their outbox copies (dry run: nothing deleted)`);
  }
  // The record of an erasure names what went, never whose it was: a line a batch, so it stays bounded too.
  const log = deps.logger.child({ by: options.email !== undefined ? 'email' : 'id' }, { level: 'info' });
  const count = await forgetInquiries(deps, filter, {
    onBatch: (ids) => {
      for (const id of ids) out.line(`erased inquiry ${id}`);
      if (ids.length) log.info({ erased: ids.length, ids }, 'inquiries erased on request');
    },
  });
  await deps.inquiries.dropDeletedCopies();
  if (!count) log.info({ erased: 0, ids: [] }, 'inquiries erased on request');
  out.line(`erased ${noun(count)}, with their outbox copies`);
}

const noun = (n: number) => `${n} ${n === 1 ? 'inquiry' : 'inquiries'}`;

/** The ids an erasure would take, a page at a time. */
async function* matchingIds(deps: Deps, options: { email?: string; id?: string }): AsyncGenerator<string> {
  if (options.email !== undefined) {
    for await (const inquiry of eachInquiry(deps.inquiries, { email: options.email })) yield inquiry.id;
  } else if (await deps.inquiries.get(options.id!)) yield options.id!;
}
