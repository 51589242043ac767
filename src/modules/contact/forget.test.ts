// Deleting many inquiries: a batch at a time, copies before rows, and a rest after each batch in
// proportion to the time it took, so that whatever is served beside a long deletion keeps most of the database.
import { describe, expect, it } from 'vitest';
import { FORGET_BATCH, forgetInquiries, type ForgetDeps } from './forget.js';

const BATCH_MS = 30;

/** A store holding `count` inquiries whose deletions each take BATCH_MS; it records what happened when. */
function slowStore(count: number) {
  let ids = Array.from({ length: count }, (_, i) => `inquiry-${i}`);
  const events: { what: string; at: number }[] = [];
  const deps: ForgetDeps = {
    inquiries: {
      idsMatching: async (_filter, limit) => ids.slice(0, limit),
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

describe('forgetInquiries', () => {
  it('deletes every match a batch at a time, each batch\'s copies before its rows', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    expect(await forgetInquiries(deps, { createdBefore: 0 })).toBe(FORGET_BATCH * 2 + 7);
    expect(events.map((e) => e.what)).toEqual([`copies ${FORGET_BATCH}`, `rows ${FORGET_BATCH}`, `copies ${FORGET_BATCH}`, `rows ${FORGET_BATCH}`, 'copies 7', 'rows 7']);
  });

  it('rests after each full batch for as long as the batch took', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    await forgetInquiries(deps, { createdBefore: 0 });
    const rows = events.filter((e) => e.what.startsWith('rows'));
    // Each batch takes BATCH_MS; the next one starts after a rest as long, so rows go 2 x BATCH_MS apart.
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.at - rows[i - 1]!.at).toBeGreaterThanOrEqual(2 * BATCH_MS - 2);
  });

  it('rests three times as long as each batch took when asked to take a quarter of the time', async () => {
    const { deps, events } = slowStore(FORGET_BATCH * 2 + 7);
    await forgetInquiries(deps, { createdBefore: 0 }, { rest: 3 });
    const rows = events.filter((e) => e.what.startsWith('rows'));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.at - rows[i - 1]!.at).toBeGreaterThanOrEqual(4 * BATCH_MS - 2);
  });
});
