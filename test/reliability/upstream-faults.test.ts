// The mail server and siteverify failing under a burst, against a running `portico serve` (DESIGN
// section 6): every request gets the documented status (502, 503 with Retry-After) within the
// configured timeouts, no inquiry is lost, the node holds no more sockets or memory afterwards than
// before, and it recovers by itself when the upstream does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idlePort } from '../support/app.js';
import { peakConnectionsDuring, residentMb, sockets } from '../support/process-stats.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startSiteverify, type TestSiteverify } from '../support/siteverify-server.js';
import { startSmtpServer, startTricklingSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

// SMTP_MAX_CONNECTIONS's default: the node never holds more connections to its relay.
const SMTP_CONNECTIONS = 5;

// The hung server's burst: every pooled connection takes a message, and 7 inquiries wait for one.
const HUNG = SMTP_CONNECTIONS + 7;

interface Outcome {
  status: number;
  ms: number;
  error: string | undefined;
  retryAfter: string | null;
}

let sequence = 0;

/** `clients` concurrent clients each sending `each` inquiries one after the other. */
async function burst(url: string, clients: number, each: number, fields: Record<string, unknown> = {}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < each; i++) {
        const n = ++sequence;
        const started = Date.now();
        const response = await fetch(`${url}/api/contact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Visitor ${n}`, email: `visitor${n}@example.com`, message: `Inquiry number ${n}.`, privacy: true, ...fields }),
        });
        const body = (await response.json()) as { error?: string };
        outcomes.push({ status: response.status, ms: Date.now() - started, error: body.error, retryAfter: response.headers.get('retry-after') });
      }
    }),
  );
  return outcomes;
}

const statuses = (outcomes: Outcome[]) => [...new Set(outcomes.map((o) => `${o.status} ${o.error ?? 'ok'}`))];
const slowest = (outcomes: Outcome[]) => Math.max(...outcomes.map((o) => o.ms));

/** Stops the node (SIGTERM, as operators do), then its upstream servers, then removes its folder. */
async function stopAll(node: ServeProcess | undefined, servers: ({ close(): Promise<void> } | undefined)[], dir: string): Promise<void> {
  node?.child.kill('SIGTERM');
  await node?.exited;
  for (const server of servers) await server?.close();
  await rm(dir, { recursive: true, force: true });
}

/**
 * Sockets and memory of a warmed node, to compare with after the faults. Established connections are
 * counted apart, because how many there are depends on timing: the test's own HTTP client keeps what
 * it opened (its choice, not the node's), and the upstream pools are held to their bounds instead.
 * Anything else, a half-closed socket included, counts in `others` (one may be closing as it is read).
 */
async function footprint(node: ServeProcess, upstreamPorts: Record<string, number>) {
  const pid = node.child.pid!;
  // One reading: counted apart, a connection closed between two readings made `others` negative.
  const held = await sockets(pid);
  const clients = held.on(Number(new URL(node.url).port));
  const upstream: Record<string, number> = {};
  for (const [name, port] of Object.entries(upstreamPorts)) upstream[name] = held.to(port);
  const established = clients + Object.values(upstream).reduce((sum, n) => sum + n, 0);
  return { others: held.total - established, clients, upstream, rss: await residentMb(pid) };
}

describe('a node whose mail server refuses, drops, hangs and goes away', () => {
  let dir: string;
  let smtpPort: number;
  let smtp: TestSmtpServer;
  let node: ServeProcess;
  let before: Awaited<ReturnType<typeof footprint>>;
  let accepted = 0;
  /** What servers since closed on the mail port accepted. */
  const deliveredIds: unknown[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-smtp-faults-'));
    smtpPort = await idlePort();
    smtp = await startSmtpServer('accept', smtpPort);
    node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
    // Warm, with the bursts' highest concurrency: the SMTP pool, statements, this client's keep-alive sockets.
    const warm = await burst(node.url, HUNG, 4);
    expect(statuses(warm)).toEqual(['200 ok']);
    accepted += warm.length;
    before = await footprint(node, { smtp: smtpPort });
  }, 30_000);

  afterAll(() => stopAll(node, [smtp], dir));

  it.each([
    ['refuses every recipient', 'reject-rcpt', 8, 5],
    ['drops every connection mid-transaction', 'drop', 8, 3],
  ] as const)('answers 502 at once while the server %s, then delivers again by itself', async (_, mode, clients, each) => {
    smtp.mode = mode;
    const failed = await burst(node.url, clients, each);
    expect(statuses(failed)).toEqual(['502 delivery_failed']);
    expect(slowest(failed)).toBeLessThan(2_000);
    smtp.mode = 'accept';
    expect(statuses(await burst(node.url, 4, 2))).toEqual(['200 ok']);
    accepted += clients * each + 8;
  });

  it('answers 502 within the 14 s send deadline when the server takes each message and never answers, even with more inquiries than pooled connections', async () => {
    smtp.mode = 'hang';
    // 7 more at once than the pool's connections: none may wait in a queue for others' timeouts (it was 30 s).
    const { result: hung, peak } = await peakConnectionsDuring(node.child.pid!, smtpPort, burst(node.url, HUNG, 1));
    expect(statuses(hung)).toEqual(['502 delivery_failed']);
    expect(slowest(hung)).toBeLessThan(16_000);
    expect(peak, 'connections to the mail server during the burst').toBeLessThanOrEqual(SMTP_CONNECTIONS);
    smtp.mode = 'accept';
    expect(statuses(await burst(node.url, 4, 2))).toEqual(['200 ok']);
    accepted += HUNG + 8;
  }, 40_000);

  it('answers 502 at once while nothing listens on the mail port, and delivers when the server is back', async () => {
    deliveredIds.push(...smtp.accepted.map((m) => m.headers.get('x-portico-inquiry-id')));
    await smtp.close();
    const down = await burst(node.url, 8, 2);
    expect(statuses(down)).toEqual(['502 delivery_failed']);
    expect(slowest(down)).toBeLessThan(2_000);
    smtp = await startSmtpServer('accept', smtpPort);
    expect(statuses(await burst(node.url, 4, 2))).toEqual(['200 ok']);
    accepted += 24;
  });

  it('has kept every inquiry, retrying all but the refused ones, and holds no more sockets or memory than before the faults', async () => {
    const db = new Database(join(dir, 'p.sqlite'), { readonly: true });
    const answered502 = 40 + 24 + HUNG + 16;
    try {
      const count = (where: string) => (db.prepare(`select count(*) as n from inquiries where ${where}`).get() as { n: number }).n;
      expect(count('1 = 1')).toBe(accepted);
      // The 40 refused with a 550 are failed for good; the rest of the 502s are sent by now, wait for their
      // retry, or are being retried this moment by the node's own job (pending, with an attempt running).
      expect(count("status = 'failed' and next_attempt_at is null")).toBe(40);
      expect(count("status = 'failed' and next_attempt_at is not null") + count("status = 'pending' and attempted_at is not null") + count("status = 'sent'")).toBe(accepted - 40);
      expect(count("status = 'sent'")).toBeGreaterThanOrEqual(accepted - answered502);
      // No attempt cut off at its deadline delivered behind the retry's back: each inquiry reached the
      // server once at most (servers restarted on this port count together).
      const ids = [...deliveredIds, ...smtp.accepted.map((m) => m.headers.get('x-portico-inquiry-id'))];
      expect(ids.length).toBeGreaterThanOrEqual(count("status = 'sent'"));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      db.close();
    }
    const after = await footprint(node, { smtp: smtpPort });
    expect(after.others, 'sockets after the faults, besides established connections').toBeLessThanOrEqual(before.others + 1);
    expect(after.upstream.smtp, 'pooled connections to the mail server').toBeLessThanOrEqual(SMTP_CONNECTIONS);
    expect(after.rss, 'resident MB after the faults').toBeLessThan(before.rss + 60);
  });
});

describe('a node whose mail server answers a byte at a time', () => {
  it('answers 502 within the 14 s send deadline, though the server is never silent long enough for the socket timeout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-smtp-trickle-'));
    // 500 ms a byte: a message would take about 20 s to get through.
    const smtp = await startTricklingSmtpServer(500);
    const node = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, SMTP_URL: smtp.url, MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example', RATE_LIMITS: 'off' });
    try {
      const outcomes = await burst(node.url, 2, 1);
      expect(statuses(outcomes)).toEqual(['502 delivery_failed']);
      expect(slowest(outcomes)).toBeLessThan(15_000);
    } finally {
      await stopAll(node, [smtp], dir);
    }
  }, 40_000);
});

describe('a node whose siteverify fails, hangs and answers garbage', () => {
  let dir: string;
  let siteverify: TestSiteverify;
  let siteverifyPort: number;
  let smtp: TestSmtpServer;
  let node: ServeProcess;
  let before: Awaited<ReturnType<typeof footprint>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-siteverify-faults-'));
    siteverify = await startSiteverify();
    siteverifyPort = Number(new URL(siteverify.url).port);
    smtp = await startSmtpServer();
    node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      TURNSTILE_SECRET_KEY: siteverify.secret,
      TURNSTILE_SITE_KEY: 'site-key',
      TURNSTILE_VERIFY_URL: siteverify.url,
      RATE_LIMITS: 'off',
    });
    // Warm, with the bursts' highest concurrency (this client's keep-alive sockets count too).
    const warm = await Promise.all(Array.from({ length: 24 }, (_, i) => burst(node.url, 1, 1, { turnstileToken: `pass-warm-${i}` })));
    expect(statuses(warm.flat())).toEqual(['200 ok']);
    before = await footprint(node, upstreams());
  }, 30_000);

  afterAll(() => stopAll(node, [smtp, siteverify], dir));

  const upstreams = () => ({ smtp: Number(new URL(smtp.url).port), siteverify: siteverifyPort });

  const unavailable = ['503 human_check_unavailable'];

  it.each([
    ['reports internal-error', 'internal-error'],
    ['answers HTTP 500', 'http-500'],
    ['answers an HTML page', 'html'],
    ['answers the JSON value null', 'json-null'],
    ['cuts its answer off halfway', 'truncated'],
    ['answers 4 MB', 'huge'],
    ['answers a JSON object that is not a siteverify answer', 'not-an-answer'],
  ])('answers 503 with Retry-After at once when siteverify %s, storing and sending nothing', async (_, token) => {
    const outcomes = await burst(node.url, 8, 3, { turnstileToken: token });
    expect(statuses(outcomes)).toEqual(unavailable);
    expect(outcomes.every((o) => /^\d+$/.test(o.retryAfter ?? ''))).toBe(true);
    expect(slowest(outcomes)).toBeLessThan(2_000);
  });

  it('answers 503 within two 3 s attempts when siteverify never answers, even for a burst', async () => {
    const { result: outcomes, peak } = await peakConnectionsDuring(node.child.pid!, siteverifyPort, burst(node.url, 24, 1, { turnstileToken: 'stall' }));
    expect(statuses(outcomes)).toEqual(unavailable);
    expect(slowest(outcomes)).toBeLessThan(7_500);
    // The burst used the connections it could have (so the sampling saw it), and no more than 16.
    expect(peak, 'connections to siteverify during the burst').toBeGreaterThan(8);
    expect(peak, 'connections to siteverify during the burst').toBeLessThanOrEqual(16);
  }, 20_000);

  it('delivers again at once when siteverify answers, and holds no more sockets or memory than before', async () => {
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => burst(node.url, 1, 1, { turnstileToken: `pass-after-${i}` })));
    expect(statuses(outcomes.flat())).toEqual(['200 ok']);
    const db = new Database(join(dir, 'p.sqlite'), { readonly: true });
    try {
      // Refused before anything is stored: only the 40 that passed are kept, all sent.
      expect(db.prepare('select status, count(*) as n from inquiries group by status').all()).toEqual([{ status: 'sent', n: 40 }]);
    } finally {
      db.close();
    }
    expect(smtp.messages).toHaveLength(40);
    const after = await footprint(node, upstreams());
    expect(after.others, 'sockets after the faults, besides established connections').toBeLessThanOrEqual(before.others + 1);
    expect(after.upstream.smtp, 'pooled connections to the mail server').toBeLessThanOrEqual(SMTP_CONNECTIONS);
    expect(after.upstream.siteverify, 'pooled connections to siteverify').toBeLessThanOrEqual(16);
    expect(after.rss, 'resident MB after the faults').toBeLessThan(before.rss + 60);
  });
});
