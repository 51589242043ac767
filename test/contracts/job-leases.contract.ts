// The JobLeases contract (src/ports/job-leases.ts): one holder at a time, across nodes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobLeases } from '../../src/ports/job-leases.js';
import type { ContractFixture } from './postgres-fixture.js';

export function jobLeasesContract(engine: string, open: () => Promise<ContractFixture<JobLeases>>): void {
  describe(`JobLeases on ${engine}`, () => {
    let fixture: ContractFixture<JobLeases>;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(() => fixture.close());

    it('gives a free lease to the first node, keeps the second out until it expires, and lets the holder renew', async () => {
      const other = await fixture.another();
      expect(await fixture.store.claim('retention', 'node-a', 1_000, 2_000)).toBe(true);
      expect(await other.claim('retention', 'node-b', 1_500, 2_500)).toBe(false);
      expect(await fixture.store.claim('retention', 'node-a', 1_800, 3_000)).toBe(true);
      expect(await other.claim('retention', 'node-b', 2_999, 4_000)).toBe(false);
      expect(await other.claim('retention', 'node-b', 3_000, 4_000)).toBe(true);
      expect(await fixture.store.claim('retention', 'node-a', 3_500, 4_500)).toBe(false);
    });

    it('keeps leases of different jobs apart', async () => {
      expect(await fixture.store.claim('one', 'node-a', 0, 10)).toBe(true);
      expect(await (await fixture.another()).claim('two', 'node-b', 0, 10)).toBe(true);
    });

    it('lets exactly one of many nodes claiming at once have it', async () => {
      const nodes = [fixture.store, ...(await Promise.all([1, 2, 3, 4].map(() => fixture.another())))];
      const claims = await Promise.all(nodes.map((node, i) => node.claim('race', `node-${i}`, 100, 200)));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });
  });
}
