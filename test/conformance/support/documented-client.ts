// A client identified by a client ID metadata document (D13), as the test OAuth client sees it, and what
// the authorization server stored: nothing, for a refused document.
import { sql } from 'kysely';
import type { TestApp } from '../../support/app.js';
import type { RegisteredClient } from './oauth-client.js';

/** The client a published document describes, in the shape OAuthTestClient speaks with: a public client. */
export const documented = (url: string, redirectUris: string[], grantTypes = ['authorization_code', 'refresh_token']): RegisteredClient => ({
  client_id: url,
  token_endpoint_auth_method: 'none',
  redirect_uris: redirectUris,
  grant_types: grantTypes,
  scope: 'contact:write mcp:invoke docs:read',
});

/** Rows of the authorization server's state: consents, codes, grants and tokens. */
export async function oauthRows(api: TestApp): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select (select count(*) from oauth_consents) + (select count(*) from oauth_codes) + (select count(*) from oauth_grants) + (select count(*) from oauth_tokens) + (select count(*) from oauth_clients) as n`.execute(
    api.deps.engine.db,
  );
  return Number(rows[0]!.n);
}
