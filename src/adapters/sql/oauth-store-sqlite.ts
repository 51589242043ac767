// The OAuth store's hot statements on SQLite (token endpoint and Bearer check), run directly on
// better-sqlite3 (sqlite-direct.ts); everything else stays in oauth-store.ts on Kysely.
import type { Selectable } from 'kysely';
import { isMetadataDocumentClientId, type OAuthStore } from '../../ports/oauth-store.js';
import { oauthRowCache } from './oauth-row-cache.js';
import { clientFromRow, TOKEN_COLUMNS_TEXT, tokenFromRow } from './oauth-rows.js';
import type { OAuthClientsTable, OAuthTokensTable } from './schema.js';
import type { DirectSqlite } from './sqlite-direct.js';

// Thrown inside the write to roll back a pair whose client is gone; never leaves saveTokens.
const CLIENT_GONE = new Error('the client was deleted');

// Not rotateRefresh: it changes refresh tokens only (used, superseded), which are never held, and ends
// no access token; a replay that does revokes the grant, which empties the cache.
type Overridden = 'getClient' | 'touchClient' | 'saveTokens' | 'getToken' | 'revokeGrant' | 'revokeToken' | 'deleteClient' | 'purgeExpired';

/**
 * The token endpoint's and the Bearer check's statements on SQLite, run directly (sqlite-direct.ts),
 * with active access tokens and clients served from memory (oauth-row-cache.ts): `store`'s writes
 * that can end a token or a client are wrapped to empty the cache.
 */
export function sqliteOAuthHotPath(direct: DirectSqlite, store: OAuthStore): Pick<OAuthStore, Overridden> {
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
    revokeGrant: clearing(store.revokeGrant),
    revokeToken: clearing(store.revokeToken),
    deleteClient: clearing(store.deleteClient),
    purgeExpired: clearing(store.purgeExpired),
  };
}
