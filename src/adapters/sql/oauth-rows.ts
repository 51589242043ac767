// OAuth rows as stored (snake_case, JSON arrays as text, times as integers) and back, for both the
// Kysely statements and SQLite's direct ones.
import type { Selectable } from 'kysely';
import type { Client, Token, TokenEndpointAuthMethod, TokenKind, TokenState } from '../../ports/oauth-store.js';
import type { OAuthClientsTable, OAuthTokensTable } from './schema.js';

export const TOKEN_COLUMNS_TEXT = 'token_hash, kind, grant_id, client_id, scope, resource, expires_at, state, previous_hash, used_at';

/** The oauth_clients row of a client, its redirect URIs and grant types as JSON text. */
export function clientToRow(client: Client) {
  return {
    client_id: client.clientId,
    secret_hash: client.secretHash,
    client_name: client.clientName,
    redirect_uris: JSON.stringify(client.redirectUris),
    grant_types: JSON.stringify(client.grantTypes),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    scope: client.scope,
    application_type: client.applicationType,
    created_at: client.createdAt,
    last_used_at: client.lastUsedAt,
  };
}

/** The client of an oauth_clients row; its JSON columns are parsed, so a corrupted row throws. */
export function clientFromRow(row: Selectable<OAuthClientsTable>): Client {
  return {
    clientId: row.client_id,
    secretHash: row.secret_hash,
    clientName: row.client_name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    grantTypes: JSON.parse(row.grant_types) as string[],
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as TokenEndpointAuthMethod,
    scope: row.scope,
    applicationType: row.application_type,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at === null ? null : row.last_used_at,
  };
}

/** The oauth_grants row of a grant being opened: not revoked. */
export const grantToRow = (grant: { grantId: string; clientId: string; scope: string; resource: string; createdAt: number }) => ({
  grant_id: grant.grantId,
  client_id: grant.clientId,
  scope: grant.scope,
  resource: grant.resource,
  created_at: grant.createdAt,
  revoked_at: null,
});

export function tokenToRow(token: Token) {
  return {
    token_hash: token.tokenHash,
    kind: token.kind,
    grant_id: token.grantId,
    client_id: token.clientId,
    scope: token.scope,
    resource: token.resource,
    expires_at: token.expiresAt,
    state: token.state,
    previous_hash: token.previousHash,
    used_at: token.usedAt,
  };
}

export function tokenFromRow(row: Selectable<OAuthTokensTable>): Token {
  return {
    tokenHash: row.token_hash,
    kind: row.kind as TokenKind,
    grantId: row.grant_id,
    clientId: row.client_id,
    scope: row.scope,
    resource: row.resource,
    expiresAt: row.expires_at,
    state: row.state as TokenState,
    previousHash: row.previous_hash,
    usedAt: row.used_at === null ? null : row.used_at,
  };
}
