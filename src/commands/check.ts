// `portico check`: the configuration as Portico reads it, and every store and channel reached.
import { OUTBOX_DIR, type Deps } from '../deps.js';
import { publicOrigin } from '../public-origin.js';
import { CliError, type Output } from './output.js';
import { openToOthers } from './permissions.js';

/**
 * `portico check`: a line for the settings, the database and each channel reached (the webhook is never
 * called). A mail channel that cannot be used throws CliError; a database that does not answer throws too.
 */
export async function check(deps: Deps, out: Output): Promise<void> {
  const { config } = deps;
  await deps.inquiries.ping();
  out.line(`environment   ${config.appEnv} at ${config.publicUrl}`);
  out.line(`clients       ${clientsLine(config.publicUrl)}`);
  out.line(`database      ${config.database.engine}: answers, migrations applied`);
  const { smtp, webhook } = config.delivery;
  if (deps.mailer) {
    try {
      await deps.mailer.verify();
    } catch (error) {
      throw new CliError(`mail: ${smtp ? `SMTP server ${smtp.host}:${smtp.port}` : 'outbox folder'} not usable: ${(error as Error).message}`);
    }
    out.line(
      `mail          ${smtp ? `SMTP server ${smtp.host}:${smtp.port} answers${smtp.user ? ` and signs in ${smtp.user}` : ''}` : 'outbox folder data/outbox (development)'}; to ${config.mailTo.address}`,
    );
  }
  // Not called: any request to it would be an event the receiver has to handle.
  if (webhook) out.line(`webhook       ${new URL(webhook.url).origin} (signed, Standard Webhooks; not called by check)`);
  out.line(`turnstile     ${config.turnstile ? `enabled (${config.turnstile.verifyUrl})` : 'disabled'}`);
  const limits = Object.entries(config.rateLimits).map(([name, l]) => `${name}=${l ? `${l.max}/${l.windowSeconds}s` : 'off'}`);
  out.line(`rate limits   ${limits.join(' ')}`);
  // A warning, not a failure: the files were made by an earlier version or by hand, and still work.
  const wide = await openToOthers(config.database.engine === 'sqlite' ? config.database.path : undefined, deps.mailer && !smtp ? OUTBOX_DIR : undefined);
  for (const problem of wide) out.line(`permissions   warning: personal data readable by others: ${problem}`);
  if (!wide.length) out.line(`permissions   data files are the owner's alone (folders 0700, files 0600)`);
  out.line('ok');
}

/** The address clients must use: the one the metadata names (RFC 9728 section 3.3), not an alias that also answers. */
function clientsLine(publicUrl: string): string {
  const origin = publicOrigin(publicUrl);
  const aliases = [...origin.hosts].filter((host) => host !== origin.host);
  const also = aliases.length ? `; ${aliases.join(' and ')} answer too, but OAuth clients refuse metadata for another address` : '';
  return `connect at ${publicUrl} (MCP: ${publicUrl}/mcp), the address the OAuth metadata names${also}`;
}
