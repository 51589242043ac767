// The OAuth store on SQLite: the portable Kysely store (../sql/oauth-store.ts), but for the token
// endpoint's insert (the Kysely store's is PostgreSQL's), run directly on better-sqlite3 and committed
// with the other writes of its event-loop turn (direct.ts).
import { isMetadataDocumentClientId, type OAuthStore } from '../../ports/oauth-store.js';
import type { Db } from '../sql/schema.js';
import { TOKEN_COLUMNS_TEXT } from '../sql/oauth-rows.js';
import { sqlOAuthStore } from '../sql/oauth-store.js';
import type { DirectSqlite } from './direct.js';

// Thrown inside the write to roll back a pair whose client is gone; never leaves saveTokens.
const CLIENT_GONE = new Error('the client was deleted');

export function sqliteOAuthStore(db: Db, direct: DirectSqlite): OAuthStore {
  const insertToken = () => direct.statement(`insert into oauth_tokens (${TOKEN_COLUMNS_TEXT}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // A registered client's token only while the client's row is there (the port's promise); one writer
  // at a time, so the check and the insert cannot be split by a deletion.
  const insertRegisteredToken = () =>
    direct.statement(`insert into oauth_tokens (${TOKEN_COLUMNS_TEXT}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where exists (select 1 from oauth_clients where client_id = ?)`);
  return {
    ...sqlOAuthStore(db),
    async saveTokens(tokens) {
      if (!tokens.length) return true;
      const insertAll = () => {
        for (const t of tokens) {
          const values = [t.tokenHash, t.kind, t.grantId, t.clientId, t.scope, t.resource, t.expiresAt, t.state, t.previousHash, t.usedAt];
          const inserted = isMetadataDocumentClientId(t.clientId) ? insertToken().run(...values) : insertRegisteredToken().run(...values, t.clientId);
          if (inserted.changes === 0) throw CLIENT_GONE;
        }
      };
      try {
        // An access and a refresh token are saved together or not at all.
        await direct.write(tokens.length === 1 ? insertAll : () => direct.atomically(insertAll));
        return true;
      } catch (error) {
        if (error === CLIENT_GONE) return false;
        throw error;
      }
    },
  };
}
