// Walking many inquiries from the CLI: a page at a time on the store's `after` cursor, so memory holds
// one page however many match, and work done on a page (a resend) never disturbs the walk.
import type { Inquiry, InquiryStore } from '../ports/inquiry-store.js';

type Query = Omit<Parameters<InquiryStore['list']>[0], 'limit' | 'after'>;

/** The inquiries `query` matches, newest first, at most `limit`; the next page is read when this one is used up. */
export async function* eachInquiry(store: Pick<InquiryStore, 'list'>, query: Query, limit = Infinity, pageSize = 500): AsyncGenerator<Inquiry> {
  let after: Inquiry | undefined;
  for (let left = limit; left > 0;) {
    const size = Math.min(left, pageSize);
    const page = await store.list({ ...query, limit: size, ...(after ? { after } : {}) });
    yield* page;
    if (page.length < size) return;
    left -= page.length;
    after = page.at(-1);
  }
}
