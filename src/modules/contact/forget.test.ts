// Deleting many inquiries: a batch at a time, copies before rows, and a pause after each batch as long
// as the batch took, so that whatever is served beside a long purge keeps half of the database.
import { describe, expect, it } from 'vitest';
import { FORGET_BATCH, forgetInquiries, type ForgetDeps } from './forget.js';

const BATCH_MS = 30;

/** A store holding `count` inquiries whose deletions each take BATCH_MS; it records what happened when. */
function slowStore(count: number) {
  let ids = Array.from({ length: count }, (_, i) => `inquiry-${i}`);
  const events: { what: string; at: number }[] = [];
  const deps: ForgetDeps = {
    inquiries: {
      async idsMatching(_filter, limit) {
        events.push({ what: 'ids', at: performance.now() });
        return ids.slice(0, limit);
      },
      async deleteIds(gone) {
        await new Promise((resolve) => setTimeout(resolve, BATCH_MS));
        ids = ids.filter((id) => !gone.includes(id));
        events.push({ what: `rows ${gone.length}`, at: performance.now() });
        return gone.length;
      },
    },
    async removeOutboxCopies(gone) {
      events.push({ what: `copies ${gone.length}`, at: performance.now() });
    },
  };
  return { deps, events };
}

/** For each batch but the last: how long it took, and the rest before the next one began. */
function restsAfterBatches(events: { what: string; at: number }[]) {
  const began = events.filter((e) => e.what === 'ids').map((e) => e.at);
  const ended = events.filter((e) => e.what.startsWith('rows')).map((e) => e.at);
  return ended.slice(0, -1).map((end, i) => ({ took: end - began[i]!, rest: began[i + 1]! - end }));
}

describe('forgetInquiries', () => {
  it("deletes every match a batch at a time, each batch's copies before its rows", async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    expect(await forgetInquiries(deps, { createdBefore: 0 })).toBe(FORGET_BATCH * 2 + 7);
    expect(events.map((e) => e.what).filter((what) => what !== 'ids')).toEqual([
      `copies ${FORGET_BATCH}`,
      `rows ${FORGET_BATCH}`,
      `copies ${FORGET_BATCH}`,
      `rows ${FORGET_BATCH}`,
      'copies 7',
      'rows 7',
    ]);
  });

  it('rests after each full batch for as long as the batch took', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    await forgetInquiries(deps, { createdBefore: 0 });
    // Each batch takes about BATCH_MS, and a timer may fire up to a millisecond early.
    const batches = restsAfterBatches(events);
    expect(batches).toHaveLength(2);
    for (const { took, rest } of batches) {
      expect(took).toBeGreaterThanOrEqual(BATCH_MS - 2);
      expect(rest).toBeGreaterThanOrEqual(took - 2);
    }
  });

  it('rests a multiple of the batch when asked to', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    await forgetInquiries(deps, { createdBefore: 0 }, { restFactor: 3 });
    const batches = restsAfterBatches(events);
    expect(batches).toHaveLength(2);
    for (const { took, rest } of batches) expect(rest).toBeGreaterThanOrEqual(3 * took - 2);
  });

  it('starts no further batch once its signal is aborted, and says how many it deleted', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 4);
    const stopping = new AbortController();
    const deleting = forgetInquiries(deps, { createdBefore: 0 }, { signal: stopping.signal });
    await new Promise((resolve) => setTimeout(resolve, BATCH_MS * 1.5));
    stopping.abort();
    const started = performance.now();
    expect(await deleting).toBe(FORGET_BATCH);
    // The pause after the first batch ends with the abort, not after its BATCH_MS.
    expect(performance.now() - started).toBeLessThan(BATCH_MS / 2);
    expect(events.map((e) => e.what)).toEqual(['ids', `copies ${FORGET_BATCH}`, `rows ${FORGET_BATCH}`]);
  });
});
