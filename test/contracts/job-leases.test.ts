// The JobLeases contract on SQLite (a real file) and on PostgreSQL (nodes on their own pools).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/sql/database.js';
import { migrateToLatest } from '../../src/adapters/sql/migration-runner.js';
import { jobLeasesContract } from './job-leases.contract.js';
import { contractOnPostgres } from './postgres-fixture.js';

jobLeasesContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-leases-'));
  const engine = openDatabase({ engine: 'sqlite', path: join(dir, 'leases.sqlite') });
  await migrateToLatest(engine);
  return {
    store: engine.leases,
    another: async () => engine.leases,
    async close() {
      await engine.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

await contractOnPostgres('test/contracts/job-leases.test.ts', (engine) => engine.leases, jobLeasesContract);
