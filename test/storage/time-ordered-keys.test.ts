// docs/storage.md: inquiry ids, grant ids and token keys sort by creation time (UUID v7, RFC 9562
// section 5.7; a time prefix on tokens), so inserts land at the right edge of the B-trees.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const START = Date.UTC(2026, 10, 22, 8, 0, 0);

describe('time-ordered storage keys', () => {
  let api: TestApp;
  let now = START;
  const rows = <T>(query: string) => {
    const db = new Database(join(api.dir, 'portico.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(query).all() as T[];
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { clock: { now: () => now } });
  });
  afterAll(() => api?.close());

  it('gives inquiries UUID v7 ids that sort in the order they were received', async () => {
    for (let i = 0; i < 5; i++) {
      now += 1000;
      const response = await api.post('/api/contact', { name: `Ana ${i}`, email: 'ana@example.com', message: 'A demo, please', privacy: true });
      expect(response.status).toBe(200);
    }
    const stored = rows<{ id: string; created_at: number }>('select id, created_at from inquiries order by id');
    expect(stored).toHaveLength(5);
    for (const row of stored) expect(row.id).toMatch(UUID_V7);
    expect(stored.map((r) => Number(r.created_at))).toEqual([1, 2, 3, 4, 5].map((i) => START + i * 1000));
    // The first 48 bits are the creation time in milliseconds.
    expect(parseInt(stored[0]!.id.replace(/-/g, '').slice(0, 12), 16)).toBe(START + 1000);
  });

  it('issues tokens that start with their issue time and are stored under keys that sort by it', async () => {
    const registered = await api.post('/oauth/register', { client_name: 'keys', grant_types: ['client_credentials'] });
    const { client_id: id, client_secret: secret } = (await registered.json()) as { client_id: string; client_secret: string };
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      now += 60_000;
      const response = await fetch(`${api.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
        body: 'grant_type=client_credentials',
      });
      const body = (await response.json()) as { access_token: string };
      expect(response.status).toBe(200);
      tokens.push(body.access_token);
      expect(parseInt(body.access_token.slice(0, 12), 16)).toBe(now);
    }
    const stored = rows<{ token_hash: string; grant_id: string }>('select token_hash, grant_id from oauth_tokens order by token_hash');
    expect(stored.map((r) => r.token_hash.slice(0, 12))).toEqual(tokens.map((t) => t.slice(0, 12)));
    for (const row of stored) expect(row.grant_id).toMatch(UUID_V7);
    // D4: the token itself is not stored, only its time prefix and hash.
    for (const token of tokens) expect(stored.some((r) => r.token_hash.includes(token.slice(12)))).toBe(false);
  });
});
