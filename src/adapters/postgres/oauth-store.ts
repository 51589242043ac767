// The OAuth store on PostgreSQL: the portable Kysely store (../sql/oauth-store.ts), but for the token
// endpoint's insert, which writes the tokens of one event-loop turn in one statement of PostgreSQL's own.
import { sql } from 'kysely';
import { METADATA_DOCUMENT_CLIENT_ID_PREFIX, type OAuthStore, type Token } from '../../ports/oauth-store.js';
import type { Db } from '../sql/schema.js';
import { TOKEN_COLUMNS_TEXT } from '../sql/oauth-rows.js';
import { sqlOAuthStore } from '../sql/oauth-store.js';
import { batchedWrites } from './batched-writes.js';
import { preparedAs } from './prepared-statements.js';

const TOKEN_COLUMNS = sql.raw(TOKEN_COLUMNS_TEXT);

export function postgresOAuthStore(db: Db): OAuthStore {
  // Raw SQL on the token endpoint's hot path: Kysely's builder and compiler would cost more than the
  // statement itself (docs/performance.md). One statement text whatever the batch's size (unnest of one
  // array a column), and a token is written only while its registered client exists: the key-share lock
  // on the client's row makes a concurrent deleteClient (which deletes that row first) wait for this
  // insert, or this insert see the deletion.
  const insertTokens = batchedWrites<Token>(async (rows) => {
    const column = <K extends keyof Token>(key: K) => rows.map((t) => t[key]);
    const { rows: written } = await sql<{ token_hash: string }>`${preparedAs('portico_insert_tokens')}
      insert into oauth_tokens (${TOKEN_COLUMNS})
      select * from unnest(${column('tokenHash')}::text[], ${column('kind')}::text[], ${column('grantId')}::text[], ${column('clientId')}::text[],
        ${column('scope')}::text[], ${column('resource')}::text[], ${column('expiresAt')}::bigint[], ${column('state')}::text[],
        ${column('previousHash')}::text[], ${column('usedAt')}::bigint[]) as t(${TOKEN_COLUMNS})
      where starts_with(t.client_id, ${METADATA_DOCUMENT_CLIENT_ID_PREFIX})
        or exists (select from oauth_clients c where c.client_id = t.client_id for key share)
      returning token_hash`.execute(db);
    const stored = new Set(written.map((row) => row.token_hash));
    return new Set(rows.filter((t) => !stored.has(t.tokenHash)));
  });
  return {
    ...sqlOAuthStore(db),
    saveTokens: async (tokens) => tokens.length === 0 || insertTokens(tokens),
  };
}
