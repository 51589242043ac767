// `portico migrate`: this release's schema changes (made while the deps were built), then its backfills run
// to their end here, unless a serving node is running one, which it then leaves to that node.
import { runBackfills, schemaStatus } from '../adapters/sql/migration-runner.js';
import type { Deps } from '../deps.js';
import type { Output } from './output.js';

export async function migrate(deps: Deps, out: Output): Promise<void> {
  const before = await schemaStatus(deps.engine);
  const unfinished = await runBackfills(deps.engine, {
    leases: deps.leases,
    holder: `migrate-${deps.random.bytes(4).toString('hex')}`,
    now: () => deps.clock.now(),
  });
  for (const { name, remaining } of before.backfills) {
    if (remaining && !unfinished.includes(name)) out.line(`backfill ${name}: ${remaining} ${remaining === 1 ? 'row' : 'rows'} filled`);
  }
  for (const name of unfinished) out.line(`backfill ${name} is under way on a serving node, which finishes it (portico check shows how far it is)`);
  out.line(unfinished.length ? 'schema is up to date; backfills under way' : 'database is up to date');
}
