// Two nodes on one PostgreSQL database retrying the same due inquiries at the same moment: each inquiry
// is claimed by one of them and reaches the mail server once (D15).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactDeps } from '../../src/deps.js';
import { deliverWaiting } from '../../src/modules/contact/redeliver.js';
import { startApp, type TestApp } from '../support/app.js';
import { createDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const available = await postgresAvailable('test/cluster/delivery-two-nodes.test.ts');

describe.skipIf(!available)('background delivery on two nodes sharing PostgreSQL', () => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let nodes: TestApp[];
  let now = Date.parse('2026-11-25T10:00:00Z');
  const clock = { now: () => now };

  beforeAll(async () => {
    database = await createDatabase();
    smtp = await startSmtpServer('reject-mail');
    const env = { DATABASE_URL: database.url, SMTP_URL: smtp.url, RATE_LIMITS: 'off' };
    nodes = [await startApp(env, { clock }), await startApp(env, { clock })];
  });
  afterAll(async () => {
    for (const node of nodes ?? []) await node.close();
    await smtp?.close();
    await database?.drop();
  });

  it('delivers each of 40 due inquiries exactly once when both nodes look for them at once', async () => {
    // Received while the relay deferred everything: each waits for its retry.
    for (let i = 0; i < 40; i++) expect((await nodes[i % 2]!.post('/api/contact', { name: `Visitor ${i}`, email: `v${i}@example.com`, message: `Inquiry ${i}`, privacy: true })).status).toBe(502);
    smtp.mode = 'accept';
    now += 60 * 60_000;
    const sent = await Promise.all(nodes.map((node) => deliverWaiting(contactDeps(node.deps))));
    expect(sent[0]! + sent[1]!).toBe(40);
    const ids = smtp.accepted.map((m) => m.headers.get('x-portico-inquiry-id'));
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect((await nodes[0]!.deps.inquiries.list({ status: 'sent', limit: 100 })).length).toBe(40);
  });
});
