// OAuthStore over Kysely: clients, consents, codes, grants and tokens, keyed by SHA-256 hashes.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { sql, type Transaction } from 'kysely';
import type { OAuthStore, TokenState } from '../../ports/oauth-store.js';
import type { Db } from './schema.js';
import { heldClients } from './held-clients.js';
import { clientFromRow, clientToRow, grantToRow, tokenFromRow, tokenToRow } from './oauth-rows.js';
import type { Tables } from './schema.js';

// Deletes run in batches so a large purge never holds the (single-threaded) database for long.
const PURGE_BATCH = 500;

/**
 * OAuthStore over Kysely, on either engine, its clients held in memory (held-clients.ts), but for the token
 * endpoint's insert, which each engine writes its own way (../sqlite/oauth-store.ts, ../postgres/oauth-store.ts).
 */
export function sqlOAuthStore(db: Db): Omit<OAuthStore, 'saveTokens'> {
  const revokeGrantIn = async (trx: Transaction<Tables>, grantId: string, now: number) => {
    await trx.updateTable('oauth_grants').set({ revoked_at: now }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).execute();
    await trx.updateTable('oauth_tokens').set({ state: 'revoked' }).where('grant_id', '=', grantId).execute();
  };

  const held = heldClients();

  const store: Omit<OAuthStore, 'saveTokens'> = {
    async createClient(client) {
      await db.insertInto('oauth_clients').values(clientToRow(client)).execute();
    },
    async getClient(clientId) {
      const known = held.get(clientId);
      if (known) return known;
      if (clientId.includes('\0')) return undefined; // PostgreSQL text holds no NUL: no such key exists.
      const row = await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
      const client = row && clientFromRow(row);
      if (client) held.keep(client);
      return client;
    },
    async listClients(limit) {
      const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
      return rows.map(clientFromRow);
    },
    async deleteClient(clientId) {
      held.forget(clientId);
      const deleted = await db.transaction().execute(async (trx) => {
        // The client's row first: from here a token insert for it waits, then finds it gone (insertTokens).
        // Then its grants, which a refresh rotation in flight holds (rotateRefresh): one that got there
        // first has committed its tokens before the tokens' delete below reads the table.
        const result = await trx.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst();
        for (const table of ['oauth_grants', 'oauth_tokens', 'oauth_codes', 'oauth_consents'] as const) {
          await trx.deleteFrom(table).where('client_id', '=', clientId).execute();
        }
        return Number(result.numDeletedRows) === 1;
      });
      held.forget(clientId); // read again by this node while the deletion was under way
      return deleted;
    },
    async touchClient(clientId, at) {
      await db.updateTable('oauth_clients').set({ last_used_at: at }).where('client_id', '=', clientId).execute();
      held.touched(clientId, at);
    },

    async createConsent(consent) {
      await db
        .insertInto('oauth_consents')
        .values({
          id_hash: consent.idHash,
          browser_hash: consent.browserHash,
          client_id: consent.clientId,
          redirect_uri: consent.redirectUri,
          scope: consent.scope,
          resource: consent.resource,
          code_challenge: consent.codeChallenge,
          state: consent.state,
          expires_at: consent.expiresAt,
          consumed_at: null,
        })
        .execute();
    },
    async consumeConsent(idHash, now) {
      const taken = await db.updateTable('oauth_consents').set({ consumed_at: now }).where('id_hash', '=', idHash).where('consumed_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return undefined;
      const row = await db.selectFrom('oauth_consents').selectAll().where('id_hash', '=', idHash).executeTakeFirstOrThrow();
      return {
        idHash: row.id_hash,
        browserHash: row.browser_hash,
        clientId: row.client_id,
        redirectUri: row.redirect_uri,
        scope: row.scope,
        resource: row.resource,
        codeChallenge: row.code_challenge,
        state: row.state,
        expiresAt: row.expires_at,
      };
    },

    async createCode(code, grant) {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('oauth_grants').values(grantToRow(grant)).execute();
        await trx
          .insertInto('oauth_codes')
          .values({
            code_hash: code.codeHash,
            grant_id: code.grantId,
            client_id: code.clientId,
            redirect_uri: code.redirectUri,
            code_challenge: code.codeChallenge,
            scope: code.scope,
            resource: code.resource,
            expires_at: code.expiresAt,
            consumed_at: null,
          })
          .execute();
      });
    },
    async consumeCode(codeHash, now) {
      const taken = await db.updateTable('oauth_codes').set({ consumed_at: now }).where('code_hash', '=', codeHash).where('consumed_at', 'is', null).executeTakeFirst();
      const row = await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      if (!row) return undefined;
      if (Number(taken.numUpdatedRows) !== 1) return { replayed: row.grant_id };
      if (row.expires_at <= now) return undefined;
      return {
        codeHash: row.code_hash,
        grantId: row.grant_id,
        clientId: row.client_id,
        redirectUri: row.redirect_uri,
        codeChallenge: row.code_challenge,
        scope: row.scope,
        resource: row.resource,
        expiresAt: row.expires_at,
      };
    },

    async createGrant(grant) {
      await db.insertInto('oauth_grants').values(grantToRow(grant)).execute();
    },
    async revokeGrant(grantId, now) {
      await db.transaction().execute((trx) => revokeGrantIn(trx, grantId, now));
    },

    async isGrantRevoked(grantId) {
      const row = await db.selectFrom('oauth_grants').select('revoked_at').where('grant_id', '=', grantId).executeTakeFirst();
      return row?.revoked_at != null;
    },

    async getToken(tokenHash) {
      const row = await db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && tokenFromRow(row);
    },
    async rotateRefresh(refresh, now, issue) {
      return db.transaction().execute(async (trx) => {
        // First, the grant row, written to itself: on PostgreSQL the row lock orders this rotation against
        // a revocation (revokeGrantIn writes the same row first) and against a second node rotating the same
        // token, which waits here and then sees this rotation's successors (and supersedes them, D4).
        // The caller read `refresh` before this transaction; what it read may have changed since.
        const { rows: grants } = await sql<{ revoked_at: number | null }>`update oauth_grants set revoked_at = revoked_at where grant_id = ${refresh.grantId} returning revoked_at`.execute(trx);
        if (grants[0]?.revoked_at !== null) return 'revoked';
        const { rows: tokens } = await sql<{ state: TokenState }>`select state from oauth_tokens where token_hash = ${refresh.tokenHash}`.execute(trx);
        const state = tokens[0]?.state ?? 'revoked';
        if (state !== 'active') return state;
        await trx
          .updateTable('oauth_tokens')
          .set({ used_at: sql`coalesce(used_at, ${now})` })
          .where('token_hash', '=', refresh.tokenHash)
          .execute();
        if (refresh.previousHash) {
          await trx.updateTable('oauth_tokens').set({ state: 'superseded' }).where('token_hash', '=', refresh.previousHash).where('state', '=', 'active').execute();
        }
        // Successors issued from this token earlier whose response was lost are never valid now.
        await trx.updateTable('oauth_tokens').set({ state: 'superseded' }).where('previous_hash', '=', refresh.tokenHash).where('used_at', 'is', null).where('state', '=', 'active').execute();
        await trx.insertInto('oauth_tokens').values(issue.map(tokenToRow)).execute();
        return 'rotated';
      });
    },
    async revokeToken(tokenHash) {
      await db.updateTable('oauth_tokens').set({ state: 'revoked' }).where('token_hash', '=', tokenHash).execute();
    },

    async purgeExpired(now, policy) {
      let removed = 0;
      /** Runs a DELETE of at most PURGE_BATCH rows until one deletes fewer, yielding between them. */
      const inBatches = async (deleteBatch: () => Promise<{ numDeletedRows: bigint }>) => {
        for (;;) {
          const deleted = Number((await deleteBatch()).numDeletedRows);
          removed += deleted;
          if (deleted < PURGE_BATCH) return;
          await yieldToOthers();
        }
      };
      const expired = (table: 'oauth_tokens' | 'oauth_codes' | 'oauth_consents', key: 'token_hash' | 'code_hash' | 'id_hash') =>
        inBatches(() =>
          db
            .deleteFrom(table)
            .where(
              key as never,
              'in',
              db
                .selectFrom(table)
                .select(key as never)
                .where('expires_at', '<', now)
                .limit(PURGE_BATCH),
            )
            .executeTakeFirstOrThrow(),
        );
      await expired('oauth_tokens', 'token_hash');
      await expired('oauth_codes', 'code_hash');
      await expired('oauth_consents', 'id_hash');
      const stale = await db
        .selectFrom('oauth_clients')
        .select('client_id')
        .where((eb) => eb.or([eb.and([eb('last_used_at', 'is', null), eb('created_at', '<', now - policy.neverUsedClientMs)]), eb('last_used_at', '<', now - policy.unusedClientMs)]))
        .limit(PURGE_BATCH)
        .execute();
      for (const { client_id } of stale) if (await store.deleteClient(client_id)) removed++;
      // Grants with no token left and no pending code are history. NOT EXISTS reads the grant_id indexes
      // row by row; NOT IN would first gather every token's grant in memory.
      const empty = db
        .selectFrom('oauth_grants as g')
        .select('g.grant_id')
        .where('g.created_at', '<', now - 3_600_000)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_tokens as t').select('t.grant_id').whereRef('t.grant_id', '=', 'g.grant_id'))))
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_codes as c').select('c.grant_id').whereRef('c.grant_id', '=', 'g.grant_id'))))
        .limit(PURGE_BATCH);
      await inBatches(() => db.deleteFrom('oauth_grants').where('grant_id', 'in', empty).executeTakeFirstOrThrow());
      return removed;
    },
  };
  return store;
}
