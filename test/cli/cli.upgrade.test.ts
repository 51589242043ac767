// A database of the release before (its migrations, 0001-0006, and its rows) meets this release's commands:
// only serve and migrate change the schema, check says what a roll would meet, and a later release's
// compatible migration stops nothing (D22). The whole roll, with the release before built from git, is
// test/upgrade/.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { migrateLegacyUpTo } from '../../src/adapters/sql/legacy-migrations.js';
import { bearerFor, inquiry, startApp } from '../support/app.js';
import { outboxFiles } from '../support/outbox.js';
import { startServe } from '../support/serve-process.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

/** The schema the release before leaves, with one inquiry as it wrote them (no normalized e-mail). */
async function databaseOfTheReleaseBefore(space: Workspace): Promise<void> {
  const engine = openDatabase({ engine: 'sqlite', path: join(space.dir, 'p.sqlite') });
  try {
    await migrateLegacyUpTo(engine.db, engine.name, '0006_failed_inquiries');
    await engine.db
      .insertInto('inquiries')
      .values({
        id: 'from-the-release-before',
        created_at: 1_000,
        status: 'sent',
        channel: 'api',
        name: 'Ana',
        email: 'Ana@Example.com',
        message: 'Hello',
        locale: 'en',
        client_id: null,
        remote_ip: '127.0.0.1',
        idempotency_key: null,
        fingerprint: 'f',
        attempts: 1,
        attempted_at: 1_000,
        last_error: null,
        message_id: '<from-the-release-before@example.com>',
        sent_at: 1_001,
      } as never)
      .execute();
  } finally {
    await engine.destroy();
  }
}

const tables = (space: Workspace) => {
  const sqlite = new Database(join(space.dir, 'p.sqlite'), { readonly: true });
  try {
    const names = sqlite.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all() as string[];
    const columns = sqlite.prepare('select name from pragma_table_info(?)').pluck().all('inquiries') as string[];
    return { names, columns };
  } finally {
    sqlite.close();
  }
};

describe('a database of the release before', () => {
  let space: Workspace;
  beforeEach(async () => {
    space = await workspace();
    await databaseOfTheReleaseBefore(space);
  });
  afterEach(() => space.remove());

  it('is left unmigrated by portico inquiries list, which refuses in one line naming portico migrate', async () => {
    const before = tables(space);
    const { code, stdout, stderr } = await space.cli('inquiries', 'list');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(lines(stderr)).toEqual([
      'portico: the database is not migrated for this release (4 pending: 0007_normalized_email, 0008_screening, 0010_topic_and_consent, 0011_delivery_attempts): run `portico migrate`, or start a node of this release',
    ]);
    expect(tables(space)).toEqual(before);
    expect(before.names).not.toContain('portico_schema_migrations');
  });

  it('is reported by portico check as a rolling upgrade the release before serves beside, and one it can roll back from', async () => {
    const { code, stdout } = await space.cli('check');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^schema +4 to make at this release's first start or by portico migrate \(0007_normalized_email, 0008_screening, 0010_topic_and_consent, 0011_delivery_attempts\); the release before serves beside them: a rolling upgrade$/m,
    );
    expect(stdout).toMatch(/^backfill +0009_fill_normalized_email: starts after the schema changes;/m);
    expect(stdout).toMatch(/^roll back +to the release before \(eed6bdc\) at any time: it runs on this release's schema$/m);
    expect(lines(stdout).at(-1)).toBe('ok');
  });

  it('is migrated by portico migrate, its rows backfilled, and its Kysely table left as the release before reads it', async () => {
    const { code, stdout } = await space.cli('migrate');
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual(['backfill 0009_fill_normalized_email: 1 row filled', 'database is up to date']);
    const sqlite = new Database(join(space.dir, 'p.sqlite'), { readonly: true });
    try {
      expect(sqlite.prepare('select name from portico_migrations order by name').pluck().all()).toHaveLength(6);
      expect(sqlite.prepare('select name from portico_schema_migrations order by name').pluck().all()).toEqual([
        '0007_normalized_email',
        '0008_screening',
        '0009_fill_normalized_email',
        '0010_topic_and_consent',
        '0011_delivery_attempts',
      ]);
      expect(sqlite.prepare("select email_normalized from inquiries where id = 'from-the-release-before'").pluck().get()).toBe('ana@example.com');
    } finally {
      sqlite.close();
    }
    expect((await space.cli('inquiries', 'list')).stdout).toContain('from-the-release-before');
    const check = await space.cli('check');
    expect(check.stdout).toMatch(/^schema +this release's migrations applied$/m);
    expect(check.stdout).not.toMatch(/^backfill/m);
  });
  it('keeps this release from acknowledging again the same day an address a node of the release before acknowledged during the roll', async () => {
    expect((await space.cli('migrate')).code).toBe(0);
    // What a node of the release before writes beside this release's nodes: no normalized form.
    const sqlite = new Database(join(space.dir, 'p.sqlite'));
    try {
      sqlite.prepare("update inquiries set email_normalized = null, acknowledged_at = ? where id = 'from-the-release-before'").run(Date.now() - 60_000);
    } finally {
      sqlite.close();
    }
    const outbox = join(space.dir, 'outbox');
    const api = await startApp({ ...space.env, RATE_LIMITS: 'off', MAIL_ACKNOWLEDGE: 'on' }, { dir: space.dir, outboxDir: outbox });
    try {
      const bearer = await bearerFor(api, 'contact:write');
      expect((await api.post('/api/contact', inquiry({ email: 'Ana@Example.com' }), bearer)).status).toBe(200);
      expect((await api.post('/api/contact', inquiry({ email: 'bo@example.com' }), bearer)).status).toBe(200);
    } finally {
      // A closing node waits for the notes it started after its answers.
      await api.close();
    }
    const notes = outboxFiles(outbox).filter((path) => path.endsWith('.ack.eml'));
    expect(notes.map((path) => readFileSync(path, 'utf8').includes('bo@example.com'))).toEqual([true]);
  });
});

describe("a database a build of main migrated before the ledger, with 0007 and 0008 in Kysely's table", () => {
  let space: Workspace;
  beforeEach(async () => {
    space = await workspace();
    await databaseOfTheReleaseBefore(space);
    // What that build left: the columns and indexes of 0007 and 0008, and their names in portico_migrations.
    const sqlite = new Database(join(space.dir, 'p.sqlite'));
    try {
      for (const column of ['email_normalized text', 'content_hash text', 'duplicate_of text', 'spam_reasons text', 'released_at bigint']) sqlite.exec(`alter table inquiries add column ${column}`);
      sqlite.exec('update inquiries set email_normalized = lower(email)');
      sqlite.exec('create index inquiries_email_normalized on inquiries (email_normalized, created_at)');
      sqlite.exec('create index inquiries_acknowledged_normalized on inquiries (email_normalized, acknowledged_at) where acknowledged_at is not null');
      sqlite.exec('create index inquiries_content_hash on inquiries (content_hash, created_at) where content_hash is not null');
      sqlite.exec("create index inquiries_duplicate on inquiries (created_at) where status = 'duplicate'");
      const record = sqlite.prepare('insert into portico_migrations (name, timestamp) values (?, ?)');
      for (const name of ['0007_normalized_email', '0008_screening']) record.run(name, '2026-11-28T10:00:00.000Z');
    } finally {
      sqlite.close();
    }
  });
  afterEach(() => space.remove());

  it('keeps them as applied, moving them to the ledger, so that the release before starts on it again', async () => {
    expect((await space.cli('check')).stdout).toMatch(/^schema +2 to make at this release's first start or by portico migrate \(0010_topic_and_consent, 0011_delivery_attempts\);/m);
    const { code, stdout } = await space.cli('migrate');
    expect(code).toBe(0);
    expect(lines(stdout).at(-1)).toBe('database is up to date');
    const sqlite = new Database(join(space.dir, 'p.sqlite'), { readonly: true });
    try {
      expect(sqlite.prepare('select name from portico_migrations order by name').pluck().all()).toHaveLength(6);
      expect(sqlite.prepare('select name, applied_at from portico_schema_migrations order by name').all()).toEqual([
        { name: '0007_normalized_email', applied_at: Date.parse('2026-11-28T10:00:00.000Z') },
        { name: '0008_screening', applied_at: Date.parse('2026-11-28T10:00:00.000Z') },
        { name: '0009_fill_normalized_email', applied_at: expect.any(Number) },
        { name: '0010_topic_and_consent', applied_at: expect.any(Number) },
        { name: '0011_delivery_attempts', applied_at: expect.any(Number) },
      ]);
    } finally {
      sqlite.close();
    }
  });
});

describe('a database a later release migrated', () => {
  let space: Workspace;
  beforeEach(async () => {
    space = await workspace();
    expect((await space.cli('migrate')).code).toBe(0);
  });
  afterEach(() => space.remove());

  /** What a later release leaves in the ledger for a migration of its own. */
  const laterMigration = (name: string, compatible: boolean) => {
    const sqlite = new Database(join(space.dir, 'p.sqlite'));
    try {
      sqlite.prepare('alter table inquiries add column later_column text').run();
      sqlite.prepare('insert into portico_schema_migrations (name, kind, compatible, applied_at) values (?, ?, ?, ?)').run(name, 'schema', compatible ? 1 : 0, 2_000);
    } finally {
      sqlite.close();
    }
  };

  it('is served by this release when the later migration is compatible, which it names in its log', async () => {
    laterMigration('0042_later_release', true);
    const server = await startServe({ ...space.env, LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect(server.output()).toContain('the database carries migrations of a later release, all compatible: this release runs beside them');
      expect(server.output()).toContain('0042_later_release');
      const check = await space.cli('check');
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(/^schema +a later release added 0042_later_release, each compatible: this release runs beside it$/m);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses to serve, in one line, when the later migration is not compatible', async () => {
    laterMigration('0042_drops_a_column', false);
    for (const command of [['serve'], ['inquiries', 'list'], ['check']]) {
      const { code, stderr } = await space.cli(...command);
      expect(code, command.join(' ')).toBe(1);
      expect(lines(stderr), command.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^portico: .*0042_drops_a_column, migrations? of a later release that this release cannot run beside/);
    }
  });
});
