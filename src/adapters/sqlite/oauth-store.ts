// The OAuth store on SQLite: the token endpoint's and the Bearer check's statements run directly on
// better-sqlite3 (direct.ts), with active access tokens and clients served from memory
// (oauth-row-cache.ts); everything else is the portable Kysely store's (../sql/oauth-store.ts).
import type { Selectable } from 'kysely';
import { isMetadataDocumentClientId, type OAuthStore } from '../../ports/oauth-store.js';
import type { Db } from '../sql/database.js';
import { sqlOAuthStore } from '../sql/oauth-store.js';
import { clientFromRow, TOKEN_COLUMNS_TEXT, tokenFromRow } from '../sql/oauth-rows.js';
import type { OAuthClientsTable, OAuthTokensTable } from '../sql/schema.js';
import type { DirectSqlite } from './direct.js';
import { oauthRowCache } from './oauth-row-cache.js';

// Thrown inside the write to roll back a pair whose client is gone; never leaves saveTokens.
const CLIENT_GONE = new Error('the client was deleted');

/**
 * The OAuth store on an SQLite database: the portable store's methods, but for the hot reads and writes
 * run directly, and the portable writes that can end a token or a client wrapped to empty the cache.
 * Not rotateRefresh: it changes refresh tokens only (used, superseded), which are never held, and ends
 * no access token; a replay that does revokes the grant, which empties the cache.
 */
export function sqliteOAuthStore(db: Db, direct: DirectSqlite): OAuthStore {
  const portable = sqlOAuthStore(db);
  const cache = oauthRowCache(direct);
  // Emptied before the write starts and again once it has committed: a row read in between is
  // dropped before the write's caller hears that it is done.
  const clearing =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      cache.clear();
      try {
        return await write(...args);
      } finally {
        cache.clear();
      }
    };
  const clientById = () => direct.statement('select * from oauth_clients where client_id = ?');
  const tokenByHash = () => direct.statement('select * from oauth_tokens where token_hash = ?');
  const insertToken = () => direct.statement(`insert into oauth_tokens (${TOKEN_COLUMNS_TEXT}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // A registered client's token only while the client's row is there (the port's promise); one writer
  // at a time, so the check and the insert cannot be split by a deletion.
  const insertRegisteredToken = () =>
    direct.statement(`insert into oauth_tokens (${TOKEN_COLUMNS_TEXT}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where exists (select 1 from oauth_clients where client_id = ?)`);
  return {
    ...portable,
    getClient(clientId) {
      const held = cache.client(clientId);
      if (held) return Promise.resolve(held);
      return direct.read(() => {
        const row = clientById().get(clientId) as Selectable<OAuthClientsTable> | undefined;
        if (!row) return undefined;
        const client = clientFromRow(row);
        cache.keepClient(client);
        return client;
      });
    },
    async touchClient(clientId, at) {
      await direct.write(() => void direct.statement('update oauth_clients set last_used_at = ? where client_id = ?').run(at, clientId));
      cache.touched(clientId, at);
    },
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
    getToken(tokenHash) {
      const held = cache.token(tokenHash);
      if (held) return Promise.resolve(held);
      return direct.read(() => {
        const row = tokenByHash().get(tokenHash) as Selectable<OAuthTokensTable> | undefined;
        if (!row) return undefined;
        const token = tokenFromRow(row);
        cache.keepToken(token);
        return token;
      });
    },
    revokeGrant: clearing(portable.revokeGrant),
    revokeToken: clearing(portable.revokeToken),
    deleteClient: clearing(portable.deleteClient),
    purgeExpired: clearing(portable.purgeExpired),
  };
}
