// `npm run bench`: Portico side by side with a bare node:http server giving the same answers; ratios, not absolutes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { answerKey, recordAnswer, startBare, startPortico, startSmtpSink, type Answer, type BenchRequest, type Running } from './servers.js';

const SECONDS = positive('BENCH_SECONDS', 5);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 10);
const WARMUP_SECONDS = 1;

type Route = BenchRequest & { name: string };

const ROUTES: Route[] = [
  { name: 'GET /healthz', method: 'GET', path: '/healthz' },
  {
    name: 'POST /api/contact',
    method: 'POST',
    path: '/api/contact',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ana García', email: 'bench@example.com', message: 'We manage 40 buildings and would like a demo.', privacy: true }),
  },
];

/** POST /oauth/token, client_credentials with HTTP Basic, for a client registered now. */
async function tokenRoute(baseUrl: string): Promise<Route> {
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', grant_types: ['client_credentials'], scope: 'contact:write' }),
  });
  const { client_id: id, client_secret: secret } = (await response.json()) as { client_id: string; client_secret: string };
  return {
    name: 'POST /oauth/token (client_credentials, Basic)',
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials&scope=contact%3Awrite',
  };
}

const MCP_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const MCP_ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POST /mcp: tools/list in the 2025-11-25 and 2026-07-28 styles, and a tools/call that e-mails the sink. */
function mcpRoutes(): Route[] {
  const modern = (method: string, name?: string) => ({ ...MCP_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
  const args = { name: 'Ana García', email: 'bench@example.com', message: 'We manage 40 buildings and would like a demo.', privacy: true };
  return [
    { name: 'POST /mcp tools/list (2025-11-25)', method: 'POST', path: '/mcp', headers: { ...MCP_ACCEPT, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
    { name: 'POST /mcp tools/list (2026-07-28)', method: 'POST', path: '/mcp', headers: modern('tools/list'), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MCP_META } }) },
    {
      name: 'POST /mcp tools/call contact_service',
      method: 'POST',
      path: '/mcp',
      headers: modern('tools/call', 'contact_service'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: args, _meta: MCP_META } }),
    },
  ];
}

interface Load {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Little's law on a closed loop (connections / throughput): finer than autocannon's whole-millisecond percentiles. */
  meanMs: number;
  requests: number;
  non2xx: number;
  errors: number;
}

interface RouteResult {
  route: string;
  portico: Load;
  bare: Load;
  ratio: number;
}

async function load(baseUrl: string, request: BenchRequest, seconds: number): Promise<Load> {
  // One worker thread fires the requests, so the load generator does not share Portico's event loop.
  const result = await autocannon({
    url: `${baseUrl}${request.path}`,
    method: request.method,
    headers: request.headers ?? {},
    body: request.body,
    connections: CONNECTIONS,
    duration: seconds,
    workers: 1,
  });
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: (CONNECTIONS * 1000) / result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function measure(name: string, server: Running, route: Route): Promise<Load> {
  process.stderr.write(`${route.name} on ${name}: ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured...\n`);
  await load(server.url, route, WARMUP_SECONDS);
  return load(server.url, route, SECONDS);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-'));
  const running: Running[] = [];
  try {
    const sink = await startSmtpSink();
    running.push(sink);
    const portico = await startPortico(sink.url, dir);
    running.push(portico);
    ROUTES.push(await tokenRoute(portico.url), ...mcpRoutes());
    // BENCH_ROUTES=token,healthz runs only the routes whose name contains one of the words.
    const only = process.env.BENCH_ROUTES?.split(',').filter(Boolean);
    if (only?.length) ROUTES.splice(0, ROUTES.length, ...ROUTES.filter((r) => only.some((word) => r.name.includes(word))));
    const recorded = new Map<Route, Answer>();
    for (const route of ROUTES) {
      const answer = await recordAnswer(portico.url, route);
      if (answer.status !== 200) throw new Error(`${route.name}: Portico answered ${answer.status} ${answer.body}`);
      recorded.set(route, answer);
    }
    // Several routes share a path (POST /mcp); the bare server is told each route's answer just before it runs.
    const answers = new Map<string, Answer>();
    const bare = await startBare(answers);
    running.push(bare);

    const results: RouteResult[] = [];
    for (const route of ROUTES) {
      answers.set(answerKey(route), recorded.get(route)!);
      const onPortico = await measure('portico', portico, route);
      const onBare = await measure('bare', bare, route);
      results.push({ route: route.name, portico: onPortico, bare: onBare, ratio: onPortico.reqPerSec / onBare.reqPerSec });
    }

    printTable(results);
    const problems = results.flatMap((r) => (['portico', 'bare'] as const).filter((s) => r[s].non2xx || r[s].errors).map((s) => `${r.route} on ${s}: ${r[s].non2xx} non-2xx, ${r[s].errors} errors`));
    for (const problem of problems) process.stderr.write(`WARNING ${problem}: its figures are not comparable\n`);

    const file = join(tmpdir(), 'portico-bench', 'latest.json');
    await mkdir(join(tmpdir(), 'portico-bench'), { recursive: true });
    const environment = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, seconds: SECONDS, connections: CONNECTIONS };
    await writeFile(file, `${JSON.stringify({ at: new Date().toISOString(), environment, results }, null, 2)}\n`);
    process.stdout.write(`\nresults written to ${file}\n`);
    if (problems.length) process.exitCode = 1;
  } finally {
    for (const server of running.reverse()) await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function printTable(results: RouteResult[]): void {
  const rows = [
    ['route', 'portico req/s', 'bare req/s', 'portico/bare', 'portico ms p50/p99 (mean)', 'bare ms p50/p99 (mean)'],
    ...results.map((r) => [
      r.route,
      r.portico.reqPerSec.toFixed(0),
      r.bare.reqPerSec.toFixed(0),
      r.ratio.toFixed(3),
      latency(r.portico),
      latency(r.bare),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  process.stdout.write(`\n${SECONDS} s per server and route, ${CONNECTIONS} connections, Node ${process.version}, ${cpus().length} CPUs\n\n`);
  process.stdout.write(`${[line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n')}\n`);
}

const latency = (load: Load) => `${load.p50Ms} / ${load.p99Ms} (${load.meanMs.toFixed(load.meanMs < 10 ? 2 : 0)})`;

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
