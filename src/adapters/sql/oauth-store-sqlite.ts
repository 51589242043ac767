// The OAuth store's hot statements on SQLite (token endpoint and Bearer check), run directly on
// better-sqlite3 (sqlite-direct.ts); everything else stays in oauth-store.ts on Kysely.
import type { Selectable } from 'kysely';
import type { OAuthStore } from '../../ports/oauth-store.js';
import { clientFromRow, TOKEN_COLUMNS_TEXT, tokenFromRow } from './oauth-rows.js';
import type { OAuthClientsTable, OAuthTokensTable } from './schema.js';
import type { DirectSqlite } from './sqlite-direct.js';

/** The token endpoint's and the Bearer check's statements on SQLite, run directly (sqlite-direct.ts). */
export function sqliteOAuthHotPath(direct: DirectSqlite): Pick<OAuthStore, 'getClient' | 'touchClient' | 'saveTokens' | 'getToken'> {
  const clientById = () => direct.statement('select * from oauth_clients where client_id = ?');
  const tokenByHash = () => direct.statement('select * from oauth_tokens where token_hash = ?');
  const insertToken = () => direct.statement(`insert into oauth_tokens (${TOKEN_COLUMNS_TEXT}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    getClient: (clientId) =>
      direct.read(() => {
        const row = clientById().get(clientId) as Selectable<OAuthClientsTable> | undefined;
        return row && clientFromRow(row);
      }),
    touchClient: (clientId, at) => direct.write(() => void direct.statement('update oauth_clients set last_used_at = ? where client_id = ?').run(at, clientId)),
    async saveTokens(tokens) {
      if (!tokens.length) return;
      const insertAll = () => {
        const insert = insertToken();
        for (const t of tokens) insert.run(t.tokenHash, t.kind, t.grantId, t.clientId, t.scope, t.resource, t.expiresAt, t.state, t.previousHash, t.usedAt);
      };
      // An access and a refresh token are saved together or not at all.
      await direct.write(tokens.length === 1 ? insertAll : () => direct.atomically(insertAll));
    },
    getToken: (tokenHash) =>
      direct.read(() => {
        const row = tokenByHash().get(tokenHash) as Selectable<OAuthTokensTable> | undefined;
        return row && tokenFromRow(row);
      }),
  };
}
