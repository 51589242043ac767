// The OAuthStore contract (src/ports/oauth-store.ts), run against every engine by its own test file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Client, OAuthStore, Token } from '../../src/ports/oauth-store.js';

export interface StoreFixture {
  store: OAuthStore;
  /** A second store on the same database, with its own connection(s): another node. */
  another(): Promise<OAuthStore>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
const client = (clientId: string, fields: Partial<Client> = {}): Client => ({
  clientId,
  secretHash: 'ab'.repeat(32),
  clientName: 'Test',
  redirectUris: ['https://app.example/cb'],
  grantTypes: ['authorization_code', 'refresh_token'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  scope: 'contact:write',
  applicationType: null,
  createdAt: 0,
  lastUsedAt: null,
  ...fields,
});
const token = (tokenHash: string, fields: Partial<Token> = {}): Token => ({
  tokenHash,
  kind: 'access',
  grantId: 'g1',
  clientId: 'c1',
  scope: 'contact:write',
  resource: 'https://api.example/api/contact',
  expiresAt: 10 * HOUR,
  state: 'active',
  previousHash: null,
  usedAt: null,
  ...fields,
});
const grant = (grantId: string, clientId = 'c1') => ({ grantId, clientId, scope: 'contact:write', resource: 'https://api.example/api/contact', createdAt: 0 });
const code = (codeHash: string, grantId: string, expiresAt = HOUR) => ({
  codeHash,
  grantId,
  clientId: 'c1',
  redirectUri: 'https://app.example/cb',
  codeChallenge: 'x'.repeat(43),
  scope: 'contact:write',
  resource: 'https://api.example/api/contact',
  expiresAt,
});

export function oauthStoreContract(engine: string, open: () => Promise<StoreFixture>): void {
  describe(`OAuthStore on ${engine}`, () => {
    let fixture: StoreFixture;
    let store: OAuthStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
      await store.createClient(client('c1'));
    });
    afterEach(() => fixture.close());

    it('keeps a client exactly as registered', async () => {
      expect(await store.getClient('c1')).toEqual(client('c1'));
      expect(await store.getClient('nobody')).toBeUndefined();
    });

    it('lets a code be consumed once, and reports the grant of a replay', async () => {
      await store.createCode(code('code1', 'g1'), grant('g1'));
      expect(await store.consumeCode('code1', 0)).toMatchObject({ codeHash: 'code1', grantId: 'g1' });
      expect(await store.consumeCode('code1', 0)).toEqual({ replayed: 'g1' });
      expect(await store.consumeCode('unknown', 0)).toBeUndefined();
    });

    it('refuses an expired code', async () => {
      await store.createCode(code('old', 'g2', 10), grant('g2'));
      expect(await store.consumeCode('old', 11)).toBeUndefined();
    });

    it('lets a consent be consumed once, and never after it expires', async () => {
      const consent = { idHash: 'k1', browserHash: 'b', clientId: 'c1', redirectUri: 'https://app.example/cb', scope: 'contact:write', resource: 'r', codeChallenge: 'c', state: null, expiresAt: 100 };
      await store.createConsent(consent);
      await store.createConsent({ ...consent, idHash: 'k2' });
      expect(await store.consumeConsent('k1', 50)).toEqual(consent);
      expect(await store.consumeConsent('k1', 50)).toBeUndefined();
      expect(await store.consumeConsent('k2', 100)).toBeUndefined();
    });

    it('revokes every token of a grant at once', async () => {
      await store.saveTokens([token('a1'), token('r1', { kind: 'refresh' }), token('other', { grantId: 'g9' })]);
      await store.createGrant(grant('g1'));
      expect(await store.isGrantRevoked('g1')).toBe(false);
      // Read first, as a node serving Bearer checks has: whatever it keeps must not outlive the revocation.
      expect((await store.getToken('a1'))?.state).toBe('active');
      await store.revokeGrant('g1', 5);
      expect(await store.isGrantRevoked('g1')).toBe(true);
      expect((await store.getToken('a1'))?.state).toBe('revoked');
      expect((await store.getToken('r1'))?.state).toBe('revoked');
      expect((await store.getToken('other'))?.state).toBe('active');
    });

    it('rotates a refresh token: the predecessor and unused siblings are superseded, the new tokens stored', async () => {
      await store.createGrant(grant('g1'));
      await store.saveTokens([token('r0', { kind: 'refresh', usedAt: 1 }), token('r1', { kind: 'refresh', previousHash: 'r0' }), token('lost', { kind: 'refresh', previousHash: 'r1' })]);
      const r1 = (await store.getToken('r1'))!;
      expect(await store.rotateRefresh(r1, 7, [token('a2'), token('r2', { kind: 'refresh', previousHash: 'r1' })])).toBe('rotated');
      expect((await store.getToken('r0'))?.state).toBe('superseded');
      expect((await store.getToken('lost'))?.state).toBe('superseded');
      expect(await store.getToken('r1')).toMatchObject({ state: 'active', usedAt: 7 });
      expect(await store.getToken('r2')).toMatchObject({ state: 'active', previousHash: 'r1' });
    });

    it('lets exactly one of two nodes racing for a code consume it; the other sees a replay', async () => {
      const other = await fixture.another();
      for (let i = 0; i < 10; i++) {
        await store.createCode(code(`race${i}`, `gr${i}`), grant(`gr${i}`));
        const outcomes = await Promise.all([store.consumeCode(`race${i}`, 0), other.consumeCode(`race${i}`, 0)]);
        expect(outcomes.filter((outcome) => outcome && 'codeHash' in outcome)).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome && 'replayed' in outcome)).toEqual([{ replayed: `gr${i}` }]);
      }
    });

    // D4: a retried refresh may mint a second successor, and then the first one is superseded, whichever node ran first.
    it('leaves exactly one active successor when two nodes rotate one refresh token at once', async () => {
      const other = await fixture.another();
      await store.createGrant(grant('g1'));
      for (let i = 0; i < 10; i++) {
        await store.saveTokens([token(`p${i}`, { kind: 'refresh' })]);
        const presented = (await store.getToken(`p${i}`))!;
        await Promise.all([
          store.rotateRefresh(presented, 5, [token(`a${i}`, { kind: 'refresh', previousHash: `p${i}` })]),
          other.rotateRefresh(presented, 5, [token(`b${i}`, { kind: 'refresh', previousHash: `p${i}` })]),
        ]);
        const states = [(await store.getToken(`a${i}`))!.state, (await store.getToken(`b${i}`))!.state].sort();
        expect(states).toEqual(['active', 'superseded']);
        expect(await store.getToken(`p${i}`)).toMatchObject({ state: 'active', usedAt: 5 });
      }
    });

    it('rotates nothing when the grant was revoked after the refresh token was read', async () => {
      await store.createGrant(grant('g1'));
      await store.saveTokens([token('r1', { kind: 'refresh' })]);
      const r1 = (await store.getToken('r1'))!;
      await store.revokeGrant('g1', 5);
      expect(await store.rotateRefresh(r1, 6, [token('a2'), token('r2', { kind: 'refresh', previousHash: 'r1' })])).toBe('revoked');
      expect(await store.getToken('a2')).toBeUndefined();
      expect(await store.getToken('r2')).toBeUndefined();
    });

    it('rotates nothing when the refresh token was superseded after it was read, and says so', async () => {
      await store.createGrant(grant('g1'));
      await store.saveTokens([token('r1', { kind: 'refresh' }), token('r2', { kind: 'refresh', previousHash: 'r1' })]);
      const stale = (await store.getToken('r1'))!;
      // r2, the successor, is used: r1 is superseded from then on.
      expect(await store.rotateRefresh((await store.getToken('r2'))!, 6, [token('r3', { kind: 'refresh', previousHash: 'r2' })])).toBe('rotated');
      expect(await store.rotateRefresh(stale, 7, [token('x', { kind: 'refresh', previousHash: 'r1' })])).toBe('superseded');
      expect(await store.getToken('x')).toBeUndefined();
    });

    it('rotates nothing for a refresh token whose grant is unknown', async () => {
      await store.saveTokens([token('orphan', { kind: 'refresh', grantId: 'gone' })]);
      const orphan = (await store.getToken('orphan'))!;
      expect(await store.rotateRefresh(orphan, 6, [token('a2', { grantId: 'gone' })])).toBe('revoked');
      expect(await store.getToken('a2')).toBeUndefined();
    });

    it('leaves no active token under a grant that one node revokes while another rotates its refresh token', async () => {
      const other = await fixture.another();
      for (let i = 0; i < 10; i++) {
        await store.createGrant(grant(`gv${i}`));
        await store.saveTokens([token(`p${i}`, { kind: 'refresh', grantId: `gv${i}` })]);
        const presented = (await other.getToken(`p${i}`))!;
        const [, outcome] = await Promise.all([
          store.revokeGrant(`gv${i}`, 5),
          other.rotateRefresh(presented, 5, [token(`a${i}`, { grantId: `gv${i}` }), token(`n${i}`, { kind: 'refresh', grantId: `gv${i}`, previousHash: `p${i}` })]),
        ]);
        expect(['rotated', 'revoked']).toContain(outcome);
        for (const hash of [`p${i}`, `a${i}`, `n${i}`]) expect((await store.getToken(hash))?.state ?? 'absent').not.toBe('active');
      }
    });

    it('deletes a client with everything it holds', async () => {
      await store.createCode(code('c', 'g3'), grant('g3'));
      await store.saveTokens([token('t')]);
      expect(await store.getClient('c1')).toBeDefined();
      expect(await store.getToken('t')).toBeDefined();
      expect(await store.deleteClient('c1')).toBe(true);
      expect(await store.getClient('c1')).toBeUndefined();
      expect(await store.getToken('t')).toBeUndefined();
      expect(await store.consumeCode('c', 0)).toBeUndefined();
      expect(await store.deleteClient('c1')).toBe(false);
    });

    it('saves no token for a client another node deleted, though this node read the client before', async () => {
      expect(await store.getClient('c1')).toBeDefined();
      expect(await (await fixture.another()).deleteClient('c1')).toBe(true);
      expect(await store.saveTokens([token('late'), token('late-refresh', { kind: 'refresh' })])).toBe(false);
      expect(await store.getToken('late')).toBeUndefined();
      expect(await store.getToken('late-refresh')).toBeUndefined();
    });

    it("saves a metadata document client's tokens, which has no registered row", async () => {
      const documentClient = 'https://app.example/oauth/client.json';
      expect(await store.saveTokens([token('cimd', { clientId: documentClient })])).toBe(true);
      expect(await store.getToken('cimd')).toMatchObject({ clientId: documentClient });
    });

    it('leaves no token of a client deleted while another node saves tokens for it', async () => {
      const other = await fixture.another();
      const saved: string[] = [];
      // Four callers save one token after another until the store refuses: the deletion lands among them.
      const saving = [0, 1, 2, 3].map(async (caller) => {
        for (let i = 0; ; i++) {
          const hash = `racing-${caller}-${i}`;
          if (!(await other.saveTokens([token(hash)]))) return;
          saved.push(hash);
        }
      });
      while (saved.length < 40) await new Promise((resolve) => setTimeout(resolve, 1));
      expect(await store.deleteClient('c1')).toBe(true);
      await Promise.all(saving);
      for (const hash of saved) expect(await store.getToken(hash)).toBeUndefined();
      expect(await other.saveTokens([token('after')])).toBe(false);
    });

    it("records a client's last use, as every later read sees it", async () => {
      await store.createClient(client('used'));
      expect((await store.getClient('used'))?.lastUsedAt).toBeNull();
      await store.touchClient('used', 42);
      expect((await store.getClient('used'))?.lastUsedAt).toBe(42);
      expect((await (await fixture.another()).getClient('used'))?.lastUsedAt).toBe(42);
    });

    it('revokes one token that was read before, leaving the others', async () => {
      await store.saveTokens([token('gone'), token('kept')]);
      expect((await store.getToken('gone'))?.state).toBe('active');
      expect((await store.getToken('kept'))?.state).toBe('active');
      await store.revokeToken('gone');
      expect((await store.getToken('gone'))?.state).toBe('revoked');
      expect((await store.getToken('kept'))?.state).toBe('active');
    });

    it('purges an expired token that was read before, though no client goes with it', async () => {
      await store.saveTokens([token('stale', { expiresAt: 5 })]);
      expect(await store.getToken('stale')).toBeDefined();
      await store.purgeExpired(10, { neverUsedClientMs: 1e12, unusedClientMs: 1e12 });
      expect(await store.getToken('stale')).toBeUndefined();
      expect(await store.getClient('c1')).toBeDefined();
    });

    it('purges grants left with no token and no code an hour after they were made, however many, and keeps the others', async () => {
      const EMPTY = 1_203; // more than two batches
      for (let i = 0; i < EMPTY; i++) await store.createGrant(grant(`empty${i}`));
      await store.createGrant(grant('with-token'));
      await store.saveTokens([token('live', { grantId: 'with-token', expiresAt: 10 * HOUR })]);
      await store.createCode(code('pending', 'with-code', 10 * HOUR), grant('with-code'));
      const keep = { neverUsedClientMs: 1e12, unusedClientMs: 1e12 };
      expect(await store.purgeExpired(2 * HOUR, keep)).toBe(EMPTY);
      expect(await store.purgeExpired(2 * HOUR, keep)).toBe(0);
      await store.revokeGrant('with-token', 3 * HOUR);
      expect(await store.isGrantRevoked('with-token')).toBe(true);
    });

    it('purges expired tokens and codes, never-used clients after a day, unused ones after the idle limit', async () => {
      const day = 24 * HOUR;
      await store.createClient(client('fresh', { createdAt: 10 * day }));
      await store.createClient(client('idle', { createdAt: 0, lastUsedAt: 1 * day }));
      await store.createClient(client('busy', { createdAt: 0, lastUsedAt: 10 * day }));
      await store.saveTokens([token('expired', { clientId: 'busy', expiresAt: 5 }), token('live', { clientId: 'busy', expiresAt: 20 * day })]);
      for (const id of ['c1', 'fresh', 'idle', 'busy']) await store.getClient(id);
      for (const hash of ['expired', 'live']) await store.getToken(hash);
      const removed = await store.purgeExpired(10.5 * day, { neverUsedClientMs: day, unusedClientMs: 5 * day });
      expect(removed).toBeGreaterThanOrEqual(3);
      expect(await store.getToken('expired')).toBeUndefined();
      expect(await store.getToken('live')).toBeDefined();
      expect(await store.getClient('c1')).toBeUndefined();
      expect(await store.getClient('idle')).toBeUndefined();
      expect(await store.getClient('fresh')).toBeDefined();
      expect(await store.getClient('busy')).toBeDefined();
    });
  });
}
