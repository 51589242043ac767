// `portico check`: the configuration as Portico reads it, and every store and channel reached; it changes
// nothing (no database or folder made, no migration applied), so it can run before an upgrade's backup.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Config } from '../config/config.js';
import { TOPICS } from '../ports/inquiry-store.js';
import { NOT_ROLLBACK_SAFE, type SchemaStatus } from '../adapters/sql/migration-runner.js';
import { PREVIOUS_RELEASE } from '../adapters/sql/previous-release.js';
import { inspectDeployment, OUTBOX_DIR } from '../deps.js';
import { publicOrigin } from '../modules/common/public-origin.js';
import { CliError, type Output } from './output.js';
import { openToOthers } from './permissions.js';

/**
 * `portico check`: a line for the settings, the database and each channel reached (the webhook is never
 * called). A database that does not exist, is not migrated or does not answer throws CliError, and so does a
 * mail channel that cannot be used.
 */
export async function check(config: Readonly<Config>, out: Output): Promise<void> {
  const inspection = inspectDeployment(config);
  try {
    out.line(`environment   ${config.appEnv} at ${config.publicUrl}`);
    out.line(`clients       ${clientsLine(config.publicUrl)}`);
    const schema = await inspection.schema();
    const database = config.database.engine === 'sqlite' ? `sqlite:${config.database.path}` : 'the PostgreSQL database';
    if (schema === undefined) throw new CliError(`database: ${database} does not exist: not migrated; run \`portico migrate\` (it makes and migrates it)`);
    if (schema.empty) {
      throw new CliError(`database: ${database} is not migrated (${schema.pending.length} pending: ${schema.pending.map((m) => m.name).join(', ')}); run \`portico migrate\``);
    }
    out.line(`database      ${config.database.engine}: answers`);
    for (const line of upgradeLines(schema)) out.line(line);
    const { smtp, webhook } = config.delivery;
    if (smtp) {
      try {
        await inspection.relay!.verify();
      } catch (error) {
        throw new CliError(`mail: SMTP server ${smtp.host}:${smtp.port} not usable: ${(error as Error).message}`);
      }
      out.line(`mail          SMTP server ${smtp.host}:${smtp.port} answers${smtp.user ? ` and signs in ${smtp.user}` : ''}; to ${mailboxes(config)}`);
    } else if (!webhook) {
      out.line(`mail          ${await outboxLine()}; to ${mailboxes(config)}`);
    }
    // Not called: any request to it would be an event the receiver has to handle.
    if (webhook) out.line(`webhook       ${new URL(webhook.url).origin} (signed, Standard Webhooks; not called by check)`);
    out.line(`turnstile     ${config.turnstile ? `enabled (${config.turnstile.verifyUrl})` : 'disabled'}`);
    const limits = Object.entries(config.rateLimits).map(([name, l]) => `${name}=${l ? `${l.max}/${l.windowSeconds}s` : 'off'}`);
    out.line(`rate limits   ${limits.join(' ')}`);
    // A warning, not a failure: the files were made by an earlier version or by hand, and still work.
    const wide = await openToOthers(config.database.engine === 'sqlite' ? config.database.path : undefined, !smtp && !webhook ? OUTBOX_DIR : undefined);
    for (const problem of wide) out.line(`permissions   warning: personal data readable by others: ${problem}`);
    if (!wide.length) out.line(`permissions   data files are the owner's alone (folders 0700, files 0600)`);
    out.line('ok');
  } finally {
    await inspection.close();
  }
}

/**
 * What a roll to this release, and back, would meet (D22): the schema changes still to make and whether
 * the release before runs beside them, a later release's migrations, the backfills under way, and
 * whether this release can roll back to the one before. A later release's migration this one cannot run
 * beside is a failure.
 */
function upgradeLines(schema: SchemaStatus): string[] {
  const names = (migrations: readonly { name: string }[]) => migrations.map((m) => m.name).join(', ');
  const lines: string[] = [];
  const blocking = schema.pending.filter((m) => !m.compatible);
  if (!schema.pending.length) lines.push("schema        this release's migrations applied");
  else if (!blocking.length) {
    lines.push(
      `schema        ${schema.pending.length} to make at this release's first start or by portico migrate (${names(schema.pending)}); the release before serves beside them: a rolling upgrade`,
    );
  } else {
    lines.push(
      `schema        ${schema.pending.length} to make (${names(schema.pending)}); warning: ${names(blocking)} drop or rename, so the release before cannot serve beside them: stop all its nodes before the first node of this release starts`,
    );
  }
  const incompatible = schema.unknown.filter((m) => !m.compatible);
  if (incompatible.length) throw new CliError(`database: it carries ${names(incompatible)}, migrations of a later release that this release cannot run beside: use that release`);
  if (schema.unknown.length) lines.push(`schema        a later release added ${names(schema.unknown)}, each compatible: this release runs beside it`);
  for (const backfill of schema.backfills) {
    const left = backfill.remaining === undefined ? 'starts after the schema changes' : `${backfill.remaining} rows left`;
    lines.push(`backfill      ${backfill.name}: ${left}; a serving node of this release fills them in batches (portico_migration_backfill_remaining_rows)`);
  }
  lines.push(
    NOT_ROLLBACK_SAFE.length
      ? `roll back     not to the release before once ${NOT_ROLLBACK_SAFE.join(', ')} ran: only by restoring a backup taken before (docs/deploy.md, "Rolling back")`
      : `roll back     to the release before (${PREVIOUS_RELEASE.commit.slice(0, 7)}) at any time: it runs on this release's schema`,
  );
  return lines;
}

/** The development outbox: usable when it is a folder Portico may write, or when it is not made yet. */
async function outboxLine(): Promise<string> {
  try {
    await access(OUTBOX_DIR, constants.W_OK);
    return `outbox folder ${OUTBOX_DIR} (development)`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`mail: outbox folder ${OUTBOX_DIR} not usable: ${(error as Error).message}`);
    return `outbox folder ${OUTBOX_DIR} (development; portico serve makes it)`;
  }
}

/** The address clients must use: the one the metadata names (RFC 9728 section 3.3), not an alias that also answers. */
function clientsLine(publicUrl: string): string {
  const origin = publicOrigin(publicUrl);
  const aliases = [...origin.hosts].filter((host) => host !== origin.host);
  const also = aliases.length ? `; ${aliases.join(' and ')} answer too, but OAuth clients refuse metadata for another address` : '';
  return `connect at ${publicUrl} (MCP: ${publicUrl}/mcp), the address the OAuth metadata names${also}`;
}

/** MAIL_TO, and the topics that have a mailbox of their own: `team@example.com (demo: demos@example.com)`. */
function mailboxes(config: Pick<Config, 'mailTo' | 'mailToByTopic'>): string {
  const own = TOPICS.filter((topic) => config.mailToByTopic[topic].address !== config.mailTo.address).map((topic) => `${topic}: ${config.mailToByTopic[topic].address}`);
  return own.length ? `${config.mailTo.address} (${own.join(', ')})` : config.mailTo.address;
}
