// `portico clients list|revoke`: the registered OAuth clients, and ending one with all its tokens.
import type { Deps } from '../deps.js';
import { isMetadataDocumentClientId } from '../ports/oauth-store.js';
import { CliError, type Output } from './output.js';

const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());

/**
 * `portico clients list`: the newest clients as a table, or JSON lines without their secret hashes; CliError
 * for a --limit that is not an integer of 1 or more.
 */
export async function listClients(deps: Deps, out: Output, options: { limit?: string; json?: boolean }): Promise<void> {
  const raw = options.limit ?? '100';
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new CliError(`--limit must be an integer >= 1 (got "${raw}")`);
  const clients = await deps.oauth.listClients(Number(raw));
  if (options.json) {
    // Secret hashes stay in the database: nothing printed here could authenticate.
    for (const { secretHash, ...client } of clients) out.json({ ...client, confidential: secretHash !== null });
    return;
  }
  if (!clients.length) return out.line('no clients');
  out.table(
    ['CLIENT ID', 'NAME', 'AUTH', 'GRANTS', 'SCOPE', 'REGISTERED', 'LAST TOKEN'],
    clients.map((c) => [c.clientId, c.clientName ?? '-', c.tokenEndpointAuthMethod, c.grantTypes.join(','), c.scope, iso(c.createdAt), iso(c.lastUsedAt)]),
  );
}

/**
 * `portico clients revoke ID`: deletes the client with its codes, grants and tokens. A documented client
 * (D13), which has no registration, loses its codes and tokens but may authorize again; CliError for an
 * unknown ID.
 */
export async function revokeClient(deps: Deps, out: Output, clientId: string | undefined): Promise<void> {
  if (!clientId) throw new CliError('usage: portico clients revoke ID');
  const registered = await deps.oauth.deleteClient(clientId);
  // A client identified by its metadata document (D13) has no registration: its codes and tokens went all the same.
  if (!registered && isMetadataDocumentClientId(clientId)) {
    const host = new URL(clientId).hostname;
    return out.line(`client ${clientId} revoked: its codes and tokens are gone; it can be authorized again while its document is accepted (CIMD_DENIED_HOSTS=${host} refuses it)`);
  }
  if (!registered) throw new CliError(`no client ${clientId}`);
  out.line(`client ${clientId} revoked: its registration, codes and tokens are gone`);
}
