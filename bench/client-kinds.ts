// A client identified by its metadata document (D13) against a registered public client, on one Portico:
// the authorize path (the consent page) and the token path (a refresh with an unknown token, a 400 that
// resolves the client and looks the token up; public clients have no repeatable grant that succeeds).
// The document is warm in the cache, as it is for every request but the first of each hour.
import { startDocumentServer } from '../test/support/metadata-document-server.js';
import { recordAnswer, startPortico } from './servers.js';
import type { PairContext } from './pairs.js';
import type { Scenario } from './scenarios.js';
import type { Load } from './wrk.js';

/** Document ÷ registered at 50 connections (issue: "within 10%"). */
export const CLIENT_KIND_TARGET = 0.9;

export interface ClientKindRow {
  path: string;
  registered: number;
  document: number;
  /** Document ÷ registered, median of the rounds. */
  ratio: number;
}

/** What a comparison of two nodes needs (bench/pairs.ts), but the scenarios and credentials, made here. */
type Options = Omit<PairContext, 'chosen' | 'credentials'>;

const REDIRECT = 'https://bench.example/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

export async function compareClientKinds(options: Options): Promise<ClientKindRow[]> {
  const host = await startDocumentServer();
  options.running.push({ url: host.origin, pid: 0, close: () => host.close() });
  const portico = await startPortico({
    smtpUrl: options.smtpUrl,
    dir: options.dir,
    name: 'client-kinds',
    cpus: options.cpus,
    logLevel: options.logLevel,
    // The document host is on loopback, trusted through its test CA: only the fetch differs from the defaults.
    env: { CIMD_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: host.certPath },
  });
  options.running.push(portico);

  const registered = await fetch(`${portico.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }),
  });
  const { client_id: registeredId } = (await registered.json()) as { client_id: string };
  const documentId = host.publish(
    '/bench-client.json',
    { client_id: `${host.origin}/bench-client.json`, client_name: 'bench', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
    { 'cache-control': 'max-age=3600' },
  );

  const paths = (clientId: string): Scenario[] => [
    {
      name: 'GET /oauth/authorize (consent page)',
      instance: 'main',
      expectedStatus: 200,
      method: 'GET',
      path: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'bench' })}`,
    },
    {
      name: 'POST /oauth/token (refresh, unknown token: 400)',
      instance: 'main',
      expectedStatus: 400,
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'unknown' }).toString(),
    },
  ];
  const [forRegistered, forDocument] = [paths(registeredId), paths(documentId)];
  const rows: ClientKindRow[] = [];
  for (let i = 0; i < forRegistered.length; i++) {
    const [a, b] = [forRegistered[i]!, forDocument[i]!];
    for (const scenario of [a, b]) {
      const answer = await recordAnswer(portico.url, scenario);
      if (answer.status !== scenario.expectedStatus)
        throw new Error(`${scenario.name} for ${scenario === a ? 'the registered' : 'the documented'} client: ${answer.status} ${answer.body.slice(0, 300)}`);
    }
    process.stderr.write(`${a.name}, document ÷ registered, 50 connection(s): `);
    if (options.warmupSeconds) for (const scenario of [a, b]) await options.load(portico, scenario, 50, options.warmupSeconds);
    const rounds: { registered: Load; document: Load }[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const registeredFirst = round % 2 === 0;
      const first = await options.load(portico, registeredFirst ? a : b, 50, options.seconds);
      const second = await options.load(portico, registeredFirst ? b : a, 50, options.seconds);
      rounds.push(registeredFirst ? { registered: first, document: second } : { registered: second, document: first });
      process.stderr.write(`${(rounds.at(-1)!.document.reqPerSec / rounds.at(-1)!.registered.reqPerSec).toFixed(3)} `);
    }
    process.stderr.write('\n');
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]!;
    rows.push({
      path: a.name,
      registered: median(rounds.map((r) => r.registered.reqPerSec)),
      document: median(rounds.map((r) => r.document.reqPerSec)),
      ratio: median(rounds.map((r) => r.document.reqPerSec / r.registered.reqPerSec)),
    });
  }
  return rows;
}

export function printClientKinds(rows: ClientKindRow[]): void {
  if (!rows.length) return;
  process.stdout.write(`\nA client identified by its metadata document (warm cache) vs a registered public client, one Portico, 50 connections:\n\n`);
  process.stdout.write('| path | registered req/s | document req/s | ratio | target |\n|---|---|---|---|---|\n');
  for (const r of rows) {
    process.stdout.write(`| ${r.path} | ${r.registered.toFixed(0)} | ${r.document.toFixed(0)} | ${r.ratio.toFixed(3)} | >= ${CLIENT_KIND_TARGET}${r.ratio >= CLIENT_KIND_TARGET ? '' : ' MISSED'} |\n`);
  }
  process.stdout.write('\n');
}
