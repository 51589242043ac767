// src/adapters/sqlite/checkpoints.ts: a serving node's SQLite checkpoints run on a thread of
// their own, never in a commit on the event loop. A page reaches the database file only when a
// checkpoint copies it there from the write-ahead log, so the file's size tells who checkpointed.
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/adapters/sql/engine.js';
import { sqliteEngine } from '../../src/adapters/sqlite/engine.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Some 8 MB in one commit, from another connection that never checkpoints: a command such as a purge. */
function writeFromAnotherProcess(path: string): void {
  const other = new SQLite(path);
  other.pragma('wal_autocheckpoint = 0');
  other.exec(BALLAST);
  other.close();
}

const BALLAST = 'create table ballast (b blob); with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) insert into ballast select randomblob(4000) from n';

function logCollector() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    warn: (_: object, msg: string) => void lines.push({ level: 'warn', msg }),
    error: (_: object, msg: string) => void lines.push({ level: 'error', msg }),
  };
}

/** The node's engine on the database file, its checkpoint thread running every `intervalMs` once started. */
const open = (path: string, intervalMs: number) => sqliteEngine(path, { checkpointIntervalMs: intervalMs });

describe('SQLite checkpoints on a serving node', () => {
  let dir: string;
  let path: string;
  let engine: Engine;
  let db: Engine['db'];
  let stop: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-checkpoints-'));
    path = join(dir, 'portico.sqlite');
    engine = open(path, 20);
    db = engine.db;
    await migrateToLatest(engine);
  });
  afterEach(async () => {
    await stop?.();
    stop = undefined;
    await engine.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies what another process wrote into the database file while the node is idle', async () => {
    stop = engine.serveInBackground(logCollector())!.stop;
    const before = statSync(path).size;
    writeFromAnotherProcess(path);
    for (let i = 0; i < 100 && statSync(path).size < before + 7_000_000; i++) await sleep(20);
    expect(statSync(path).size).toBeGreaterThan(before + 7_000_000);
  });

  it('keeps the write-ahead log small while the node commits every millisecond', async () => {
    stop = engine.serveInBackground(logCollector())!.stop;
    await sql`create table ballast (b blob)`.execute(db);
    // 20 MB in commits of 40 kB: the log is never copied whole while they come. Without the thread it
    // would hold all 20 MB; with it, what comes between two checkpoints, which a busy machine can delay
    // by a few hundred milliseconds (over 5 MB of commits), hence a bound of half of it.
    for (let i = 0; i < 500; i++) {
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 10) insert into ballast select randomblob(4000) from n`.execute(db);
      await sleep(1);
    }
    expect(statSync(`${path}-wal`).size).toBeLessThan(10_000_000);
  });

  it("never checkpoints in the node's own commits, however long the write-ahead log", async () => {
    await engine.destroy();
    engine = open(path, 3_600_000);
    db = engine.db;
    stop = engine.serveInBackground(logCollector())!.stop;
    const before = statSync(path).size;
    writeFromAnotherProcess(path);
    // The node's next commit finds 2,000 pages in the log: SQLite's own rule would checkpoint them in it.
    await sql.raw('create table small (x)').execute(db);
    expect(statSync(path).size).toBe(before);
  });

  it('stops cleanly: its connection is closed, so the last one to close leaves no write-ahead log behind', async () => {
    await engine.serveInBackground(logCollector())!.stop();
    await engine.destroy();
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('gives checkpoints back to the serving connection, with an error in the log, when the thread cannot run', async () => {
    const log = logCollector();
    // The thread opens the database by its name, which no longer leads to it; the node keeps its open file.
    const moved = join(dir, 'moved.sqlite');
    renameSync(path, moved);
    stop = engine.serveInBackground(log)!.stop;
    for (let i = 0; i < 100 && !log.lines.some((line) => line.msg.includes('stopped')); i++) await sleep(20);
    expect(log.lines.map((line) => line.level)).toEqual(['error', 'error']);
    const before = statSync(moved).size;
    // SQLite's own rule again: the node's commit past 1,000 pages checkpoints them.
    await sql.raw(BALLAST.split('; ')[0]!).execute(db);
    await sql.raw(BALLAST.split('; ')[1]!).execute(db);
    expect(statSync(moved).size).toBeGreaterThan(before + 7_000_000);
  });

  it('is not started for a database in memory', () => {
    const memory = sqliteEngine(':memory:');
    expect(memory.serveInBackground(logCollector())).toBeUndefined();
    void memory.destroy();
  });
});
