// The InquiryStore contract (src/ports/inquiry-store.ts), run against every engine by its own test file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InquiryStore, NewInquiry } from '../../src/ports/inquiry-store.js';

export interface InquiryFixture {
  store: InquiryStore;
  /** A second store on the same database: another node. */
  another(): Promise<InquiryStore>;
  close(): Promise<void>;
}

const MINUTE = 60_000;
const inquiry = (id: string, fields: Partial<NewInquiry> = {}): NewInquiry => ({
  id,
  createdAt: 1_000,
  status: 'pending',
  channel: 'api',
  name: 'Ana García',
  email: 'ana@example.com',
  message: 'Línea uno\nline two 🏢',
  locale: 'es',
  topic: null,
  consent: null,
  clientId: null,
  remoteIp: '2001:db8::1',
  idempotencyKey: null,
  fingerprint: 'f'.repeat(64),
  contentHash: 'c'.repeat(64),
  spamReasons: [],
  ...fields,
});

export function inquiryStoreContract(engine: string, open: () => Promise<InquiryFixture>): void {
  describe(`InquiryStore on ${engine}`, () => {
    let fixture: InquiryFixture;
    let store: InquiryStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(() => fixture.close());

    it('keeps an inquiry exactly as given, with no delivery attempt yet', async () => {
      expect(await store.create(inquiry('i1'))).toEqual({ stored: true, duplicateOf: null });
      const { contentHash: _, ...given } = inquiry('i1');
      expect(await store.get('i1')).toEqual({
        ...given,
        attempts: 0,
        attemptedAt: null,
        lastError: null,
        messageId: null,
        webhookAt: null,
        sentAt: null,
        nextAttemptAt: null,
        duplicateOf: null,
        releasedAt: null,
      });
      expect(await store.get('missing')).toBeUndefined();
    });

    it('keeps its topic and its record of consent, and lists by topic, general ones by null', async () => {
      const consent = { at: 1_000, door: 'app' as const, policyUrl: 'https://www.example.com/privacy', textSha256: 'a'.repeat(64) };
      await store.create(inquiry('demo', { topic: 'demo', consent, createdAt: 1_000 }));
      await store.create(inquiry('sales', { topic: 'sales', createdAt: 2_000 }));
      await store.create(inquiry('general', { createdAt: 3_000 }));
      expect(await store.get('demo')).toMatchObject({ topic: 'demo', consent });
      expect(await store.get('general')).toMatchObject({ topic: null, consent: null });
      expect((await store.list({ topic: 'demo', limit: 10 })).map((i) => i.id)).toEqual(['demo']);
      expect((await store.list({ topic: null, limit: 10 })).map((i) => i.id)).toEqual(['general']);
      expect((await store.list({ limit: 10 })).map((i) => i.id)).toEqual(['general', 'sales', 'demo']);
    });

    it('keeps every attempt with its inquiry, oldest first, and deletes them with it', async () => {
      await store.create(inquiry('tried', { createdAt: 1_000 }), { claimAt: 1_000 });
      await store.create(inquiry('other', { createdAt: 1_001 }));
      const failed = { channel: 'mail' as const, startedAt: 1_000, endedAt: 1_100, ok: false, result: '451 4.3.0 Try again later', error: 'EENVELOPE 451 4.3.0 Try again later' };
      const timedOut = { channel: 'webhook' as const, startedAt: 1_100, endedAt: 11_100, ok: false, result: null, error: 'webhook: no answer within 10 s' };
      const sent = { channel: 'mail' as const, startedAt: 20_000, endedAt: 20_050, ok: true, result: '250 2.0.0 Ok: queued as 4F3X', error: null };
      const hooked = { channel: 'webhook' as const, startedAt: 20_050, endedAt: 20_060, ok: true, result: 'HTTP 204', error: null };
      const acknowledged = { channel: 'acknowledgement' as const, startedAt: 1_050, endedAt: 1_060, ok: true, result: '250 ok', error: null };
      await store.markFailed('tried', 11_100, { error: 'SMTP 451; webhook', nextAttemptAt: 20_000 }, [failed, timedOut]);
      await store.recordAttempts('tried', [acknowledged]);
      await store.markSent('tried', 20_060, { messageId: '<tried@portico>', webhookAt: 20_060 }, [sent, hooked]);
      await store.recordAttempts('other', [{ ...acknowledged, startedAt: 2_000 }]);
      expect(await store.attempts('tried')).toEqual([failed, acknowledged, timedOut, sent, hooked]);
      expect(await store.get('tried')).toMatchObject({ status: 'sent', messageId: '<tried@portico>' });

      expect(await store.deleteIds(['tried'])).toBe(1);
      expect(await store.attempts('tried')).toEqual([]);
      expect(await store.attempts('other')).toHaveLength(1);
    });

    it("stores an inquiry with the content of one received within the window as its duplicate, with the first one's id and no attempt", async () => {
      await store.create(inquiry('first', { createdAt: 1 * MINUTE, contentHash: 'same' }), { claimAt: 1 * MINUTE });
      expect(await store.create(inquiry('again', { createdAt: 2 * MINUTE, contentHash: 'same' }), { claimAt: 2 * MINUTE, duplicatesSince: 0 })).toEqual({ stored: true, duplicateOf: 'first' });
      expect(await store.create(inquiry('thrice', { createdAt: 3 * MINUTE, contentHash: 'same' }), { duplicatesSince: 2 * MINUTE })).toEqual({ stored: true, duplicateOf: 'first' });
      expect(await store.get('again')).toMatchObject({ status: 'duplicate', duplicateOf: 'first', attempts: 0, attemptedAt: null });
      expect(await store.claimDelivery('again', 4 * MINUTE, 0)).toBe(false);
      expect((await store.list({ status: 'duplicate', limit: 10 })).map((i) => i.id)).toEqual(['thrice', 'again']);
    });

    it('stores an inquiry as new when the same content came only before the window, or when no window is asked', async () => {
      await store.create(inquiry('old', { createdAt: 1 * MINUTE, contentHash: 'same' }));
      expect(await store.create(inquiry('new', { createdAt: 9 * MINUTE, contentHash: 'same' }), { duplicatesSince: 5 * MINUTE })).toEqual({ stored: true, duplicateOf: null });
      expect(await store.create(inquiry('other', { createdAt: 9 * MINUTE, contentHash: 'different' }), { duplicatesSince: 0 })).toEqual({ stored: true, duplicateOf: null });
      expect(await store.create(inquiry('unchecked', { createdAt: 9 * MINUTE, contentHash: 'same' }))).toEqual({ stored: true, duplicateOf: null });
      expect((await store.get('new'))?.status).toBe('pending');
    });

    it('lets one of two nodes storing the same inquiry at once store it, and the other its duplicate', async () => {
      const other = await fixture.another();
      for (let i = 0; i < 10; i++) {
        const results = await Promise.all([
          store.create(inquiry(`a${i}`, { contentHash: `race-${i}` }), { duplicatesSince: 0 }),
          other.create(inquiry(`b${i}`, { contentHash: `race-${i}` }), { duplicatesSince: 0 }),
        ]);
        expect(results.filter((created) => created.duplicateOf === null)).toHaveLength(1);
        const first = results[0]!.duplicateOf === null ? `a${i}` : `b${i}`;
        expect(results.map((created) => created.duplicateOf ?? first)).toEqual([first, first]);
      }
    });

    it('keeps the reasons screening gave, and releases a spam inquiry once, starting its delivery', async () => {
      await store.create(inquiry('held', { status: 'spam', spamReasons: ['links', 'blocked-term'] }));
      await store.create(inquiry('marked', { spamReasons: ['disposable-address'] }));
      expect(await store.get('held')).toMatchObject({ status: 'spam', spamReasons: ['links', 'blocked-term'], releasedAt: null });
      expect((await store.get('marked'))?.spamReasons).toEqual(['disposable-address']);
      expect(await store.release('held', 7_000)).toBe(true);
      expect(await store.get('held')).toMatchObject({ status: 'pending', releasedAt: 7_000, attempts: 1, attemptedAt: 7_000, spamReasons: ['links', 'blocked-term'] });
      expect(await store.release('held', 8_000)).toBe(false);
      expect(await store.release('marked', 8_000)).toBe(false);
      expect(await store.release('missing', 8_000)).toBe(false);
    });

    it('stores it with its first attempt claimed when asked, so no other process claims it', async () => {
      await store.create(inquiry('i2'), { claimAt: 5_000 });
      expect(await store.get('i2')).toMatchObject({ attempts: 1, attemptedAt: 5_000 });
      expect(await store.claimDelivery('i2', 6_000, 0)).toBe(false);
      // Its process died: after the stale limit, another may claim it.
      expect(await store.claimDelivery('i2', 6_000, 5_001)).toBe(true);
    });

    it('stores nothing for a taken Idempotency-Key, and finds the first by it', async () => {
      expect(await store.create(inquiry('first', { idempotencyKey: 'key-1' }))).toMatchObject({ stored: true });
      expect(await store.create(inquiry('second', { idempotencyKey: 'key-1' }))).toMatchObject({ stored: false });
      expect((await store.findByIdempotencyKey('key-1'))?.id).toBe('first');
      expect(await store.get('second')).toBeUndefined();
    });

    it('lets exactly one of two nodes store a key they race for', async () => {
      const other = await fixture.another();
      for (let i = 0; i < 10; i++) {
        const results = await Promise.all([store.create(inquiry(`a${i}`, { idempotencyKey: `race-${i}` })), other.create(inquiry(`b${i}`, { idempotencyKey: `race-${i}` }))]);
        expect(results.filter((created) => created.stored)).toHaveLength(1);
      }
    });

    it('lets one of two nodes claim a delivery, records sent and failed outcomes, and resends a sent one only when asked', async () => {
      await store.create(inquiry('i3'));
      const other = await fixture.another();
      const claims = await Promise.all([store.claimDelivery('i3', 2_000, 0), other.claimDelivery('i3', 2_000, 0)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      await store.markFailed('i3', 2_100, { error: 'SMTP 451', nextAttemptAt: 20_000 }, []);
      expect(await store.get('i3')).toMatchObject({ status: 'failed', attempts: 1, lastError: 'SMTP 451', nextAttemptAt: 20_000 });
      expect(await store.claimDelivery('i3', 3_000, 0)).toBe(true);
      await store.markSent('i3', 3_100, { messageId: '<m1@portico>' }, []);
      expect(await store.get('i3')).toMatchObject({ status: 'sent', attempts: 2, sentAt: 3_100, messageId: '<m1@portico>', lastError: null, nextAttemptAt: null });
      expect(await store.claimDelivery('i3', 4_000, 0)).toBe(false);
      expect(await store.claimDelivery('i3', 4_000, 0, true)).toBe(true);
    });

    it('keeps what each channel delivered across attempts, and never erases it with a later one that did not redo it', async () => {
      await store.create(inquiry('both'), { claimAt: 1_000 });
      await store.markFailed('both', 1_100, { messageId: '<both@portico>', error: 'webhook: HTTP 500', nextAttemptAt: 16_000 }, []);
      expect(await store.get('both')).toMatchObject({ status: 'failed', messageId: '<both@portico>', webhookAt: null, lastError: 'webhook: HTTP 500' });
      expect(await store.claimDelivery('both', 16_000, 0)).toBe(true);
      await store.markFailed('both', 16_100, { error: 'webhook: HTTP 502', nextAttemptAt: 45_000 }, []);
      expect(await store.get('both')).toMatchObject({ messageId: '<both@portico>', webhookAt: null, nextAttemptAt: 45_000 });
      expect(await store.claimDelivery('both', 45_000, 0)).toBe(true);
      await store.markSent('both', 45_100, { webhookAt: 45_050 }, []);
      expect(await store.get('both')).toMatchObject({ status: 'sent', messageId: '<both@portico>', webhookAt: 45_050, sentAt: 45_100, lastError: null, nextAttemptAt: null });
    });

    it('lists failed inquiries whose next attempt is due, the longest due first, and none given up on', async () => {
      for (const [id, next] of [
        ['later', 50_000],
        ['due', 20_000],
        ['overdue', 10_000],
        ['given-up', null],
      ] as const) {
        await store.create(inquiry(id), { claimAt: 1_000 });
        await store.markFailed(id, 1_100, { error: 'ECONNREFUSED', nextAttemptAt: next }, []);
      }
      expect((await store.listDue(30_000, 10)).map((i) => i.id)).toEqual(['overdue', 'due']);
      expect((await store.listDue(30_000, 1)).map((i) => i.id)).toEqual(['overdue']);
      // Claimed by a node: no longer failed, so no longer due to any other.
      expect(await store.claimDelivery('overdue', 30_000, 0)).toBe(true);
      expect((await store.listDue(30_000, 10)).map((i) => i.id)).toEqual(['due']);
    });

    it('acknowledges an address once a window: a later inquiry from it is refused until the window has passed', async () => {
      const DAY = 86_400_000;
      for (const id of ['ack-1', 'ack-2', 'ack-3']) await store.create(inquiry(id, { email: 'same@example.com' }));
      await store.create(inquiry('ack-other', { email: 'other@example.com' }));
      expect(await store.claimAcknowledgement('ack-1', 'same@example.com', DAY, 0)).toBe(true);
      expect(await store.claimAcknowledgement('ack-1', 'same@example.com', DAY, 0)).toBe(false);
      expect(await store.claimAcknowledgement('ack-2', 'same@example.com', DAY + 1, 1)).toBe(false);
      expect(await store.claimAcknowledgement('ack-other', 'other@example.com', DAY + 1, 1)).toBe(true);
      expect(await store.claimAcknowledgement('ack-3', 'same@example.com', 2 * DAY, DAY)).toBe(true);
    });

    it('never delivers spam', async () => {
      await store.create(inquiry('s1', { status: 'spam' }));
      expect(await store.claimDelivery('s1', 2_000, 10_000, true)).toBe(false);
    });

    it('lists stalled inquiries: never attempted or attempted before the limit, oldest first', async () => {
      await store.create(inquiry('new', { createdAt: 9 * MINUTE }));
      await store.create(inquiry('old', { createdAt: 1 * MINUTE }));
      await store.create(inquiry('busy', { createdAt: 2 * MINUTE }), { claimAt: 9 * MINUTE });
      await store.create(inquiry('dead', { createdAt: 3 * MINUTE }), { claimAt: 4 * MINUTE });
      expect((await store.listStalled(5 * MINUTE, 10)).map((i) => i.id)).toEqual(['old', 'dead']);
    });

    it('lists newest first, by status and by address', async () => {
      await store.create(inquiry('p1', { createdAt: 1 }));
      await store.create(inquiry('p2', { createdAt: 2, email: 'bo@example.com' }));
      await store.create(inquiry('sp', { createdAt: 3, status: 'spam' }));
      expect((await store.list({ limit: 10 })).map((i) => i.id)).toEqual(['sp', 'p2', 'p1']);
      expect((await store.list({ status: 'spam', limit: 10 })).map((i) => i.id)).toEqual(['sp']);
      expect((await store.list({ email: 'bo@example.com', limit: 10 })).map((i) => i.id)).toEqual(['p2']);
    });

    it('finds and deletes by age, by age and status, by address and by id, oldest first, a batch at a time', async () => {
      for (const [id, createdAt, status, email] of [
        ['a', 1, 'sent', 'ana@example.com'],
        ['b', 2, 'spam', 'bot@example.com'],
        ['c', 3, 'spam', 'bot@example.com'],
        ['d', 4, 'failed', 'ana@example.com'],
        ['e', 9, 'sent', 'eve@example.com'],
      ] as const)
        await store.create(inquiry(id, { createdAt, status, email }));
      expect(await store.count({ createdBefore: 4 })).toBe(3);
      expect(await store.idsMatching({ createdBefore: 5 }, 2)).toEqual(['a', 'b']);
      expect(await store.idsMatching({ createdBefore: 5, status: 'spam' }, 10)).toEqual(['b', 'c']);
      expect(await store.idsMatching({ email: 'ana@example.com' }, 10)).toEqual(['a', 'd']);
      expect(await store.idsMatching({ id: 'e' }, 10)).toEqual(['e']);
      expect(await store.deleteIds(['b', 'c', 'missing'])).toBe(2);
      expect(await store.deleteIds([])).toBe(0);
      expect((await store.list({ limit: 10 })).map((i) => i.id)).toEqual(['e', 'd', 'a']);
    });

    it("matches an address however its case or its domain's Unicode form was typed, and no other address", async () => {
      for (const [id, createdAt, email] of [
        ['mixed', 1, 'Privacy.Case@Example.COM'],
        ['lower', 2, 'privacy.case@example.com'],
        ['upper', 3, 'PRIVACY.CASE@example.com'],
        ['fullwidth', 4, 'privacy.case@ｅｘａｍｐｌｅ．ｃｏｍ'],
        ['other', 5, 'privacy.other@example.com'],
      ] as const)
        await store.create(inquiry(id, { createdAt, email }));
      const same = { email: 'privacy.case@EXAMPLE.com' };
      expect(await store.count(same)).toBe(4);
      expect(await store.idsMatching(same, 10)).toEqual(['mixed', 'lower', 'upper', 'fullwidth']);
      expect((await store.list({ ...same, limit: 10 })).map((i) => i.id)).toEqual(['fullwidth', 'upper', 'lower', 'mixed']);
      // Each row keeps the address exactly as it was sent.
      expect((await store.get('fullwidth'))?.email).toBe('privacy.case@ｅｘａｍｐｌｅ．ｃｏｍ');
      await store.create(inquiry('idn', { email: 'ana@Bücher.de' }));
      expect(await store.idsMatching({ email: 'ANA@xn--bcher-kva.de' }, 10)).toEqual(['idn']);
      // Mail delivers g@ΣΑΣ-x.gr to σασ-x.gr: not to σας-x.gr, which lower-casing the word would give.
      await store.create(inquiry('sigma', { email: 'g@ΣΑΣ-x.gr' }));
      expect(await store.idsMatching({ email: 'g@σασ-x.gr' }, 10)).toEqual(['sigma']);
      expect(await store.idsMatching({ email: 'g@σας-x.gr' }, 10)).toEqual([]);
      expect(await store.fillNormalizedEmails()).toBe(0);
    });

    it('acknowledges an address once a window however its case was typed', async () => {
      await store.create(inquiry('ack-lower', { email: 'same@example.com' }));
      await store.create(inquiry('ack-upper', { email: 'SAME@Example.com' }));
      expect(await store.claimAcknowledgement('ack-lower', 'same@example.com', 2_000, 0)).toBe(true);
      expect(await store.claimAcknowledgement('ack-upper', 'SAME@Example.com', 3_000, 1_000)).toBe(false);
    });

    it('walks a listing a page at a time, after the last row of the previous page, within since', async () => {
      // Two share a creation time: the order breaks the tie by id, the greater first (a later UUID v7).
      for (const [id, createdAt] of [
        ['a', 1_000],
        ['b', 2_000],
        ['c', 3_000],
        ['d', 3_000],
        ['e', 4_000],
      ] as const)
        await store.create(inquiry(id, { createdAt }));
      const walked: string[] = [];
      let after;
      for (;;) {
        const page = await store.list({ limit: 2, ...(after ? { after } : {}) });
        walked.push(...page.map((i) => i.id));
        if (page.length < 2) break;
        after = page.at(-1);
      }
      expect(walked).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect((await store.list({ limit: 10, since: 3_000 })).map((i) => i.id)).toEqual(['e', 'd', 'c']);
    });
  });
}
