// src/adapters/sqlite/direct.ts and lock-waiting-driver.ts: on SQLite the hot statements bypass Kysely and their writes are
// committed in groups. Each write must still settle on its own, and none may slip into (or be rolled
// back with) a transaction Kysely holds open across an await.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Engine } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import type { Client, Token } from '../../src/ports/oauth-store.js';
import type { NewInquiry } from '../../src/ports/inquiry-store.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

const client: Client = {
  clientId: 'client-1',
  secretHash: 'a'.repeat(64),
  clientName: 'test',
  redirectUris: [],
  grantTypes: ['client_credentials'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  scope: 'contact:write',
  applicationType: null,
  createdAt: NOW,
  lastUsedAt: null,
};

const token = (key: string): Token => ({
  tokenHash: key,
  kind: 'access',
  grantId: 'grant-1',
  clientId: client.clientId,
  scope: 'contact:write',
  resource: 'https://api.example.com/api/contact',
  expiresAt: NOW + 3_600_000,
  state: 'active',
  previousHash: null,
  usedAt: null,
});

const inquiry = (id: string, idempotencyKey: string | null = null): NewInquiry => ({
  id,
  createdAt: NOW,
  status: 'pending',
  channel: 'api',
  name: 'Ana',
  email: 'ana@example.com',
  message: 'A demo, please',
  locale: 'en',
  topic: null,
  consent: null,
  clientId: null,
  remoteIp: '127.0.0.1',
  idempotencyKey,
  fingerprint: 'f'.repeat(64),
  contentHash: 'c'.repeat(64),
  spamReasons: [],
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite group commit', () => {
  let dir: string;
  let engine: Engine;
  let db: Engine['db'];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-group-commit-'));
    engine = openDatabase({ engine: 'sqlite', path: join(dir, 'portico.sqlite') });
    db = engine.db;
    await migrateToLatest(engine);
  });
  afterEach(async () => {
    await engine.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("waits for another process's write lock without stopping the event loop, then commits", async () => {
    const other = new SQLite(join(dir, 'portico.sqlite'));
    try {
      other.exec('begin immediate');
      const store = engine.inquiries;
      const stored = store.create(inquiry('while-locked'));
      // Timers still fire while the write waits: SQLite's busy handler would have slept in this thread.
      const started = performance.now();
      await sleep(20);
      expect(performance.now() - started).toBeLessThan(200);
      other.exec('commit');
      await expect(stored).resolves.toMatchObject({ stored: true });
      expect(await store.get('while-locked')).toMatchObject({ id: 'while-locked' });
    } finally {
      other.close();
    }
  });

  it('gives up a write after five seconds of another process holding the lock, answering store_unavailable', async () => {
    const other = new SQLite(join(dir, 'portico.sqlite'));
    try {
      other.exec('begin immediate');
      const started = performance.now();
      await expect(engine.inquiries.create(inquiry('never'))).rejects.toMatchObject({ code: 'store_unavailable', status: 503, cause: { code: 'SQLITE_BUSY' } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(4_900);
      other.exec('rollback');
      expect(await engine.inquiries.get('never')).toBeUndefined();
    } finally {
      other.close();
    }
  }, 10_000);

  it("waits for another process's lock on a timer in the other statements too (an OAuth registration), the event loop going on", async () => {
    const other = new SQLite(join(dir, 'portico.sqlite'));
    try {
      other.exec('begin immediate');
      const registered = engine.oauth.createClient(client);
      // Timers still fire while the registration waits: SQLite's busy handler would have slept in this thread.
      const started = performance.now();
      await sleep(50);
      expect(performance.now() - started).toBeLessThan(200);
      other.exec('commit');
      await expect(registered).resolves.toBeUndefined();
      expect(await engine.oauth.getClient(client.clientId)).toMatchObject({ clientId: client.clientId });
    } finally {
      other.close();
    }
  });

  it("answers store_unavailable with Retry-After, not the driver's error, when the other statements wait five seconds in vain", async () => {
    const other = new SQLite(join(dir, 'portico.sqlite'));
    try {
      other.exec('begin immediate');
      const started = performance.now();
      await expect(engine.oauth.createClient(client)).rejects.toMatchObject({ code: 'store_unavailable', status: 503, headers: { 'Retry-After': '5' } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(4_900);
      other.exec('rollback');
      expect(await engine.oauth.getClient(client.clientId)).toBeUndefined();
    } finally {
      other.close();
    }
  }, 10_000);

  it('settles each write of a group on its own: a duplicate key fails alone, the rest are stored', async () => {
    const oauth = engine.oauth;
    await oauth.createClient(client);
    await oauth.saveTokens([token('key-0')]);
    const results = await Promise.allSettled(['key-1', 'key-0', 'key-2', 'key-3'].map((key) => oauth.saveTokens([token(key)])));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    for (const key of ['key-0', 'key-1', 'key-2', 'key-3']) expect(await oauth.getToken(key)).toMatchObject({ tokenHash: key, state: 'active' });
  });

  it('saves an access and a refresh token together or not at all', async () => {
    const oauth = engine.oauth;
    await oauth.createClient(client);
    await oauth.saveTokens([token('taken')]);
    const refresh = { ...token('taken'), kind: 'refresh' as const };
    await expect(oauth.saveTokens([token('fresh-access'), refresh])).rejects.toThrow(/UNIQUE/);
    expect(await oauth.getToken('fresh-access')).toBeUndefined();
  });

  it('tells each of two concurrent inquiries with one Idempotency-Key whether it was the one stored', async () => {
    const inquiries = engine.inquiries;
    const created = await Promise.all([inquiries.create(inquiry('id-1', 'same')), inquiries.create(inquiry('id-2', 'same')), inquiries.create(inquiry('id-3'))]);
    expect(created.map((c) => c.stored)).toEqual([true, false, true]);
    expect(await inquiries.get('id-2')).toBeUndefined();
    await inquiries.markSent('id-1', NOW + 1, { messageId: '<m1@example.com>' }, []);
    await inquiries.markFailed('id-3', NOW + 1, { error: '550 refused', nextAttemptAt: null }, []);
    expect(await inquiries.get('id-1')).toMatchObject({ status: 'sent', messageId: '<m1@example.com>', sentAt: NOW + 1 });
    expect(await inquiries.get('id-3')).toMatchObject({ status: 'failed', lastError: '550 refused' });
  });

  it('commits a write made while a transaction is open after it, not inside it: its rollback keeps the write', async () => {
    const oauth = engine.oauth;
    await oauth.createClient(client);
    let saved: Promise<boolean> | undefined;
    const rolledBack = db.transaction().execute(async (trx) => {
      await sql`delete from oauth_clients where client_id = ${client.clientId}`.execute(trx);
      saved = oauth.saveTokens([token('during')]);
      await sleep(30);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await saved).toBe(true);
    expect(await oauth.getToken('during')).toMatchObject({ tokenHash: 'during' });
    expect(await oauth.getClient(client.clientId)).toMatchObject({ clientId: client.clientId });
  });

  it('answers a read made while a transaction is open from committed data only', async () => {
    const oauth = engine.oauth;
    await oauth.createClient(client);
    let seen: Promise<Client | undefined> | undefined;
    const rolledBack = db.transaction().execute(async (trx) => {
      await sql`delete from oauth_clients where client_id = ${client.clientId}`.execute(trx);
      seen = oauth.getClient(client.clientId);
      await sleep(30);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await seen).toMatchObject({ clientId: client.clientId });
  });
});
