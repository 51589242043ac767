// Screening leads on PostgreSQL with two `portico serve` nodes: the database, not a node's memory, decides
// which of two identical inquiries is the duplicate.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { freePort } from '../support/app.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { screeningSuite, SCREENING_ENV, type Deployment } from './screening-suite.js';

const available = await postgresAvailable('test/contact/screening.postgres.test.ts');

describe.skipIf(!available)('two nodes on one PostgreSQL', () => {
  let deployment: Deployment;
  let database: TestDatabase;
  let nodes: ServeProcess[] = [];

  beforeAll(async () => {
    database = await createDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'portico-screening-'));
    const env = { ...SCREENING_ENV, DATABASE_URL: database.url };
    // Each node its own address as PUBLIC_URL: /mcp answers only the Host it is named by.
    const node = async () => {
      const port = await freePort();
      return startServe({ ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, { port, cwd: dir });
    };
    nodes = [await node(), await node()];
    deployment = { nodes: [nodes[0]!.url, nodes[1]!.url], dir, env };
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    await database?.drop();
    if (deployment) await rm(deployment.dir, { recursive: true, force: true });
  });

  screeningSuite('PostgreSQL', () => deployment);
});
