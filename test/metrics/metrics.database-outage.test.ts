// /metrics while PostgreSQL is away: the process and HTTP series are still served (the alert rules need
// them most then), with portico_database_up at 0; the backlog gauges come back with the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { canRunPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

if (!canRunPrivatePostgres) console.warn('SKIPPED test/metrics/metrics.database-outage.test.ts: PostgreSQL 15 server binaries are missing (/usr/lib/postgresql/15/bin).');

describe.skipIf(!canRunPrivatePostgres)('metrics while PostgreSQL is stopped', () => {
  let database: PrivatePostgres;
  let node: ServeProcess;
  let metricsUrl: string;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    node = await startServe({ DATABASE_URL: database.url, METRICS_PORT: String(metricsPort), RATE_LIMITS: 'off' });
  }, 30_000);
  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await database?.destroy();
  });

  /** One sample's value by its name and labels as written, or undefined when the series is absent. */
  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('are served 200 with the process and HTTP series and portico_database_up 0, and the backlog again once it is back', async () => {
    expect((await fetch(`${node.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
    const before = await (await fetch(metricsUrl)).text();
    expect(sample(before, 'portico_database_up')).toBe(1);
    expect(sample(before, 'portico_inquiries_undelivered{state="pending"}')).toBe(0);

    await database.stop();
    try {
      const during = await fetch(metricsUrl);
      expect(during.status).toBe(200);
      const text = await during.text();
      expect(sample(text, 'portico_database_up')).toBe(0);
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(text).toMatch(/^portico_http_requests_total\{route="\/\.well-known\/oauth-authorization-server",method="GET",status="200"\} 1$/m);
      expect(text).toMatch(/^portico_http_request_duration_seconds_count\{route="\/\.well-known\/oauth-authorization-server",method="GET"\} 1$/m);
    } finally {
      await database.start();
    }
    await expect.poll(async () => sample(await (await fetch(metricsUrl)).text(), 'portico_database_up'), { timeout: 10_000 }).toBe(1);
  }, 30_000);
});
