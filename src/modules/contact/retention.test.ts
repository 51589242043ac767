// The retention job runs inside a serving node: it deletes in batches and rests between them long enough
// to take a tenth of the node's time at most.
import { describe, expect, it } from 'vitest';
import { FORGET_BATCH } from './forget.js';
import { applyRetention, RETENTION_REST_FACTOR, type RetentionDeps } from './retention.js';

const BATCH_MS = 20;

/** A node's view of `count` old inquiries whose deletions each take BATCH_MS; it notes when each batch began and ended. */
function node(count: number, clock: { now(): number } = { now: () => Date.now() }) {
  let ids = Array.from({ length: count }, (_, i) => `inquiry-${i}`);
  const began: number[] = [];
  const ended: number[] = [];
  const deps: RetentionDeps = {
    clock,
    leases: { claim: async () => true },
    holder: 'node-1',
    log: { info: () => {} },
    inquiries: {
      async idsMatching(filter, limit) {
        if ('status' in filter && filter.status === 'spam') return [];
        began.push(performance.now());
        return ids.slice(0, limit);
      },
      async deleteIds(gone) {
        if (!gone.length) return 0;
        await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
        ids = ids.filter((id) => !gone.includes(id));
        ended.push(performance.now());
        return gone.length;
      },
    },
    removeOutboxCopies: async () => {},
  };
  return { deps, began, ended };
}

describe('the retention job', () => {
  it('rests nine times as long as each batch took, so that it takes a tenth of the time at most', async () => {
    expect(RETENTION_REST_FACTOR).toBe(9);
    const { deps, began, ended } = node(FORGET_BATCH * 2 + 1);
    expect(await applyRetention(deps, { inquiryMs: 365 * 86_400_000, spamMs: 30 * 86_400_000 })).toEqual({ spam: 0, inquiries: FORGET_BATCH * 2 + 1 });
    expect(ended).toHaveLength(3);
    // Each rest against the batch before it, as each took: a timer may fire up to a millisecond early.
    for (let i = 1; i < ended.length; i++) {
      const took = ended[i - 1]! - began[i - 1]!;
      expect(took).toBeGreaterThanOrEqual(BATCH_MS - 2);
      expect(began[i]! - ended[i - 1]!).toBeGreaterThanOrEqual(9 * took - 2);
    }
  });

  it('stops at the end of its lease, after the batch in progress, so that no other node starts the job while it runs', async () => {
    // The node's clock: each batch takes twenty minutes of it (a busy node, a year to delete).
    let minutes = 0;
    const logged: string[] = [];
    const { deps, ended } = node(FORGET_BATCH * 3, { now: () => minutes * 60_000 });
    const deleteIds = deps.inquiries.deleteIds;
    deps.inquiries.deleteIds = async (ids) => {
      if (ids.length) minutes += 20;
      return deleteIds(ids);
    };
    deps.log = { info: (_fields, message) => void logged.push(message) };
    // The lease is half an hour: the first batch ends at 20 minutes, the second at 40, past it.
    expect(await applyRetention(deps, { inquiryMs: 86_400_000, spamMs: 30 * 86_400_000 })).toEqual({ spam: 0, inquiries: FORGET_BATCH * 2 });
    expect(ended).toHaveLength(2);
    expect(logged.at(-1)).toBe('retention: the run reached the end of its lease; the next run goes on');
  });

  it('ends its rest at once when the node stops', async () => {
    const { deps, ended } = node(FORGET_BATCH * 3);
    const stopping = new AbortController();
    const running = applyRetention(deps, { inquiryMs: 86_400_000, spamMs: undefined }, stopping.signal);
    await new Promise((resolve) => setTimeout(resolve, BATCH_MS * 2));
    const stopped = performance.now();
    stopping.abort();
    expect(await running).toEqual({ spam: 0, inquiries: FORGET_BATCH });
    expect(performance.now() - stopped).toBeLessThan(BATCH_MS);
    expect(ended).toHaveLength(1);
  });
});
