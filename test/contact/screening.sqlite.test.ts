// Screening leads on the embedded default: one `portico serve` on an SQLite file, its outbox in the folder it runs in.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { screeningSuite, SCREENING_ENV, type Deployment } from './screening-suite.js';

let deployment: Deployment;
let node: ServeProcess;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-screening-'));
  const env = { ...SCREENING_ENV, DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}` };
  node = await startServe(env, { cwd: dir });
  deployment = { nodes: [node.url, node.url], dir, env };
});
afterAll(async () => {
  node.child.kill('SIGTERM');
  await node.exited;
  await rm(deployment.dir, { recursive: true, force: true });
});

screeningSuite('SQLite', () => deployment);
