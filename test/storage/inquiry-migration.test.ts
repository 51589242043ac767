// A database the first version left must come through every later migration (0003's lighter indexes,
// 0004's delivery columns) with every inquiry as it was, and with what the indexes served still
// served: a repeated Idempotency-Key is refused, stalled inquiries are found. A failed inquiry of that
// version has no next attempt: it waits, as it did then, for `inquiries resend`. Inquiries stored
// before 0007 are found by the normalized address like new ones.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Engine } from '../../src/adapters/sql/database.js';
import { migrateLegacyUpTo } from '../../src/adapters/sql/legacy-migrations.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import type { Inquiry, NewInquiry } from '../../src/ports/inquiry-store.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const HOUR = 3_600_000;

const inquiry = (n: number, fields: Partial<Inquiry> = {}): Inquiry => ({
  id: `0193f0a0-0000-7000-8000-00000000000${n}`,
  createdAt: NOW - HOUR + n,
  status: 'pending',
  channel: 'web',
  name: `Visitor ${n}`,
  email: `visitor${n}@example.com`,
  message: `Inquiry ${n}`,
  locale: 'es',
  topic: null,
  consent: null,
  clientId: null,
  remoteIp: '203.0.113.7',
  idempotencyKey: null,
  fingerprint: `f${n}`,
  attempts: 0,
  attemptedAt: null,
  lastError: null,
  messageId: null,
  webhookAt: null,
  sentAt: null,
  nextAttemptAt: null,
  spamReasons: [],
  duplicateOf: null,
  releasedAt: null,
  ...fields,
});

// What the previous version stored: sent with a key, failed, stalled while being sent, spam.
const EARLIER: Inquiry[] = [
  inquiry(1, { status: 'sent', channel: 'api', clientId: 'client-1', idempotencyKey: 'key-1', attempts: 1, attemptedAt: NOW - HOUR, messageId: '<1@portico.example>', sentAt: NOW - HOUR }),
  inquiry(2, { status: 'failed', attempts: 2, attemptedAt: NOW - HOUR, lastError: 'EENVELOPE 550 no such user' }),
  inquiry(3, { attempts: 1, attemptedAt: NOW - HOUR }),
  inquiry(4, { status: 'spam' }),
];

const row = (i: Inquiry) => ({
  id: i.id,
  created_at: i.createdAt,
  status: i.status,
  channel: i.channel,
  name: i.name,
  email: i.email,
  message: i.message,
  locale: i.locale,
  client_id: i.clientId,
  remote_ip: i.remoteIp,
  idempotency_key: i.idempotencyKey,
  fingerprint: i.fingerprint,
  attempts: i.attempts,
  attempted_at: i.attemptedAt,
  last_error: i.lastError,
  message_id: i.messageId,
  sent_at: i.sentAt,
});

const fresh = (n: number, idempotencyKey: string | null): NewInquiry => {
  const {
    attempts: _a,
    attemptedAt: _b,
    lastError: _c,
    messageId: _d,
    sentAt: _e,
    webhookAt: _f,
    nextAttemptAt: _g,
    duplicateOf: _h,
    releasedAt: _i,
    ...rest
  } = inquiry(n, { createdAt: NOW + n, idempotencyKey });
  return { ...rest, contentHash: `c${n}` };
};

function upgradeSuite(engine: string, open: () => Promise<{ engine: Engine; close(): Promise<void> }>) {
  describe(`an inquiries table of the previous version, on ${engine}`, () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(() => close?.());

    it('keeps every inquiry as it was, still refuses a repeated Idempotency-Key, and still finds the stalled ones', async () => {
      const opened = await open();
      close = opened.close;
      const { engine } = opened;
      const { db } = engine;
      await migrateLegacyUpTo(db, engine.name, '0002_oauth');
      await db.insertInto('inquiries').values(EARLIER.map(row)).execute();

      await migrateToLatest(engine);

      const store = engine.inquiries;
      for (const earlier of EARLIER) expect(await store.get(earlier.id)).toEqual(earlier);
      expect((await store.listStalled(NOW - 60_000, 10)).map((i) => i.id)).toEqual([EARLIER[2]!.id]);
      expect(await store.listDue(NOW, 10)).toEqual([]);
      expect(await store.create(fresh(5, 'key-1'), { claimAt: NOW })).toMatchObject({ stored: false });
      expect(await store.create(fresh(6, null), { claimAt: NOW })).toMatchObject({ stored: true });
      expect(await store.create(fresh(7, null), { claimAt: NOW })).toMatchObject({ stored: true });
      expect(await store.create(fresh(8, 'key-8'), { claimAt: NOW })).toMatchObject({ stored: true });
      expect(await store.create(fresh(9, 'key-8'), { claimAt: NOW })).toMatchObject({ stored: false });
      expect((await store.findByIdempotencyKey('key-8'))?.id).toBe(fresh(8, null).id);
      expect(await store.list({ limit: 20 })).toHaveLength(EARLIER.length + 3);
    });

    it('finds every inquiry of an address however it was typed, in rows written before the normalized column and beside it by a node of that version', async () => {
      const opened = await open();
      close = opened.close;
      const { engine } = opened;
      const { db } = engine;
      await migrateLegacyUpTo(db, engine.name, '0006_failed_inquiries');
      // More than one batch of the backfill, the person's three rows among the last.
      const typed = ['Privacy.Case@Example.COM', 'privacy.case@example.com', 'PRIVACY.CASE@ｅｘａｍｐｌｅ．ｃｏｍ'];
      const rows = Array.from({ length: 1_203 }, (_, n) => row(inquiry(n, { id: `earlier-${String(n).padStart(4, '0')}`, email: n >= 1_200 ? typed[n - 1_200]! : `visitor${n}@Example.com` })));
      for (let i = 0; i < rows.length; i += 300)
        await db
          .insertInto('inquiries')
          .values(rows.slice(i, i + 300))
          .execute();

      await migrateToLatest(engine);

      const store = engine.inquiries;
      expect(await store.idsMatching({ email: 'privacy.case@example.com' }, 10)).toEqual(['earlier-1200', 'earlier-1201', 'earlier-1202']);
      expect(await store.count({ email: 'VISITOR7@example.com' })).toBe(1);
      expect((await store.get('earlier-1202'))?.email).toBe(typed[2]);

      // A node of the previous version inserts as it did, without the column.
      await db
        .insertInto('inquiries')
        .values(row(inquiry(9, { id: 'from-an-old-node', email: 'Privacy.Case@example.com' })))
        .execute();
      expect(await store.fillNormalizedEmails()).toBe(1);
      expect(await store.count({ email: 'privacy.case@example.com' })).toBe(4);
    });
  });
}

upgradeSuite('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-upgrade-'));
  const engine = openDatabase({ engine: 'sqlite', path: join(dir, 'p.sqlite') });
  return {
    engine,
    async close() {
      await engine.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

if (await postgresAvailable('inquiry-migration.test.ts')) {
  upgradeSuite('PostgreSQL', async () => {
    const database: TestDatabase = await createDatabase();
    const engine = openDatabase({ engine: 'postgres', url: database.url });
    return {
      engine,
      async close() {
        await engine.destroy();
        await database.drop();
      },
    };
  });
}
