// D19 under hostile load, on `portico serve` as operators start it (the bin, SQLite, rate limits off, info
// logs): neither one address nor many can lock others out, pipelined floods and overload cannot take the
// node's memory.
// The bench's hostile scenario (`npm run bench -- --only hostile`) reports the same figures. A bar on a time
// was set on a fast spell of the machine, and is scaled by how much slower the machine is around the flood.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkHealthUntil, holdConnections, inquiryOverload, loopbackAddresses, nodeP99Ms, peakRssUntil, pipelinedFlood, warmUp, type Target } from '../support/floods.js';
import { describeSlowdown, measuredAround } from '../support/machine-speed.js';
import { residentMb, RUNTIME_ALLOWANCE_MB } from '../support/process-stats.js';
import { ROOT, startServe, type ServeProcess } from '../support/serve-process.js';

describe('a node under hostile load', () => {
  let dir: string;
  let node: ServeProcess;
  let target: Target;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-hostile-'));
    node = await startServe({ RATE_LIMITS: 'off', LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}` }, { cwd: dir, command: [`${ROOT}dist/cli.js`, 'serve'] });
    target = { port: Number(new URL(node.url).port), pid: node.child.pid! };
  });
  afterEach(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
    await rm(dir, { recursive: true, force: true });
  });

  /** The node's warn lines about connections it closed to keep its bounds, from `address`. */
  const closedLines = (address: string) =>
    node
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"connection closed') && line.includes(`"address":"${address}"`));

  for (const kind of ['idle', 'slowloris'] as const) {
    it(`answers another address's health checks while one address holds 520 ${kind} connections, reopened as they close`, async () => {
      const flood = holdConnections(target, kind, { from: '127.0.0.2', count: 520, seconds: 20 });
      const checks = await checkHealthUntil(target, flood);
      expect(checks.answered / checks.sent, `${checks.answered} of ${checks.sent} answered`).toBeGreaterThanOrEqual(0.9);
      // One line per reason and minute for the address, not one a socket.
      expect(closedLines('127.0.0.2').length).toBeLessThanOrEqual(4);
    });
  }

  for (const [from, sockets] of [
    [['127.0.0.2'], '300 sockets'],
    [loopbackAddresses(5, 10), '10 addresses × 300 sockets'],
  ] as const) {
    it(`grows by under 150 MB through two rounds of ${sockets} of 64 KB of pipelined GET /openapi.json never read, and answers every health check meanwhile`, async () => {
      const before = await residentMb(target.pid);
      const { result, slowdown } = await measuredAround(() => {
        const flood = (async () => {
          for (let round = 0; round < 2; round++) await pipelinedFlood(target, { from, sockets: 300 });
        })();
        return Promise.all([peakRssUntil(target.pid, flood), checkHealthUntil(target, flood, { everyMs: 100 })]);
      });
      const [peak, checks] = result;
      expect(peak - before, `RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`).toBeLessThan(150);
      expect(checks.answered).toBe(checks.sent);
      expect(checks.p95Ms, describeSlowdown(slowdown)).toBeLessThan(1_000 * slowdown);
    });
  }

  const overloadBarMb = 200 + RUNTIME_ALLOWANCE_MB;
  // The 2 s is the node's own time (its access lines): that is what its admission line bounds. What a client
  // sees adds the time its request waited to be read, which on this 2-core machine, the clients beside the
  // node, moved from 1.5 to 7 s between two runs of the same build while the node's own p99 stayed at 1.1 s;
  // it is reported, and bounded only loosely.
  it(`stays under ${overloadBarMb} MB and answers within 2 s (p99, its own time) through 1,000 connections of valid inquiries for 20 s, and is healthy right after`, async () => {
    await warmUp(target);
    const { result: measured, slowdown } = await measuredAround(() => {
      const overload = inquiryOverload(target, { connections: 1_000, addresses: 40, seconds: 20 });
      return Promise.all([peakRssUntil(target.pid, overload), overload]);
    });
    const [peak, result] = measured;
    expect(peak, `peak ${peak.toFixed(0)} MB`).toBeLessThan(overloadBarMb);
    const seen = `${JSON.stringify(result.outcomes)}, p99 ${result.p99Ms.toFixed(0)} ms as the clients saw it; ${describeSlowdown(slowdown)}`;
    expect(nodeP99Ms(node.output(), '/api/contact'), seen).toBeLessThan(2_000 * slowdown);
    expect(result.p99Ms, seen).toBeLessThan(15_000);
    expect(result.outcomes['200']).toBeGreaterThan(1_000);
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });

  // Last: its churn leaves tens of thousands of connections in TIME_WAIT for a minute on the one kernel
  // that the clients and the node share here, which slows the connects of the overload's own clients.
  it("answers 90% of another address's health checks while 70 addresses hold 32 connections each on POST bodies that trickle in, reopened as they close", async () => {
    const flood = Promise.all(loopbackAddresses(6, 70).map((from) => holdConnections(target, 'slow-body', { from, count: 32, seconds: 20 })));
    const checks = await checkHealthUntil(target, flood);
    expect(checks.answered / checks.sent, `${checks.answered} of ${checks.sent} answered`).toBeGreaterThanOrEqual(0.9);
  });
});
