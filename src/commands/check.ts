// `portico check`: the configuration as Portico reads it, and every store and channel reached; it changes
// nothing (no database or folder made, no migration applied), so it can run before an upgrade's backup.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Config } from '../config/config.js';
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
    const pending = await inspection.pendingMigrations();
    const database = config.database.engine === 'sqlite' ? `sqlite:${config.database.path}` : 'the PostgreSQL database';
    if (pending === undefined) throw new CliError(`database: ${database} does not exist: not migrated; run \`portico migrate\` (it makes and migrates it)`);
    if (pending.length) throw new CliError(`database: ${database} is not migrated (${pending.length} pending: ${pending.join(', ')}); run \`portico migrate\``);
    out.line(`database      ${config.database.engine}: answers, migrations applied`);
    const { smtp, webhook } = config.delivery;
    if (smtp) {
      try {
        await inspection.relay!.verify();
      } catch (error) {
        throw new CliError(`mail: SMTP server ${smtp.host}:${smtp.port} not usable: ${(error as Error).message}`);
      }
      out.line(`mail          SMTP server ${smtp.host}:${smtp.port} answers${smtp.user ? ` and signs in ${smtp.user}` : ''}; to ${config.mailTo.address}`);
    } else if (!webhook) {
      out.line(`mail          ${await outboxLine()}; to ${config.mailTo.address}`);
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
