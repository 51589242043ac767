// A provider-like relay, against a running `portico serve`: at most 3 connections from a client (the
// fourth is greeted with 421) and 10 messages a minute (the eleventh deferred with 451). A burst of 20
// inquiries is delivered in full, none lost and none twice: the connections over the cap wait for an
// open one, the messages over the rate are retried after the minute. Part of `npm run test:long`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { startRealSmtpServer, type RealSmtpServer } from '../support/smtp-tls.js';

const PER_MINUTE = 10;

describe('a relay that caps connections and messages a minute', () => {
  let dir: string;
  let node: ServeProcess;
  let relay: RealSmtpServer;
  const taken: number[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-provider-'));
    relay = await startRealSmtpServer({
      disabledCommands: ['STARTTLS'],
      maxClients: 3,
      onMailFrom(_address, _session, callback) {
        const now = Date.now();
        while (taken.length && taken[0]! <= now - 60_000) taken.shift();
        if (taken.length >= PER_MINUTE) return callback(Object.assign(new Error('4.7.0 too many messages, slow down'), { responseCode: 451 }));
        taken.push(now);
        callback();
      },
    });
    node = await startServe({
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      SMTP_URL: relay.url,
      SMTP_MAX_CONNECTIONS: '5',
      MAIL_FROM: 'web@portico.example',
      MAIL_TO: 'team@portico.example',
      RATE_LIMITS: 'off',
    });
  });
  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await relay?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers a burst of 20 with no loss and no duplicate', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`${node.url}/api/contact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(inquiry({ name: `Burst ${i}`, email: `b${i}@example.com` })),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    // The first ten minute's worth went at once; the rest were deferred by the relay, not refused for want of a connection.
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_MINUTE);
    expect(statuses.filter((s) => s === 502)).toHaveLength(20 - PER_MINUTE);
    await expect.poll(() => relay.raw.length, { timeout: 200_000, interval: 1_000 }).toBe(20);
    const ids = relay.raw.map((raw) => /^X-Portico-Inquiry-ID: (.*)\r$/im.exec(raw)?.[1]);
    expect(new Set(ids).size).toBe(20);
  }, 300_000);
});
