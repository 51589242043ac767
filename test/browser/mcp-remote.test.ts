// mcp-remote (the stdio bridge desktop clients run) connecting to a real `portico serve` through the consent
// page in Chromium: once by registering itself, once by its client ID metadata document (--client-metadata-url).
// Anonymous use needs no token, so the bridge starts as a returning user whose saved token was revoked:
// the 401 sends it through OAuth, a person approves, and it then lists and calls the tool over stdio.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORDS } from '../../src/modules/oauth/consent-i18n.js';
import Database from 'better-sqlite3';
import { freePort } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { testTool } from '../support/tools.js';
import { hasChromium, launchChromium, sayWhenSkipped } from './browser-harness.js';

sayWhenSkipped('test/browser/mcp-remote.test.ts');

// mcp-remote is no part of an install of Portico (tools/mcp-clients), and is pinned there: where 0.15.1
// keeps a server's tokens is part of what is pinned.
const BRIDGE = hasChromium ? testTool('mcp-clients', 'node_modules/mcp-remote/dist/proxy.js') : undefined;
const tokensFile = (configDir: string, hashParts: string[]) => join(configDir, 'mcp-remote-v1', `${createHash('md5').update(hashParts.join('|')).digest('hex')}_tokens.json`);

interface Bridge {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  ask(id: number, method: string, params?: object): Promise<Record<string, unknown>>;
  notify(method: string): void;
}

async function startBridge(serverUrl: string, configDir: string, extraArgs: string[] = []): Promise<Bridge> {
  // No browser opener on PATH: the bridge prints the authorization URL, and Chromium opens it.
  const child = spawn(process.execPath, [BRIDGE!, serverUrl, String(await freePort()), '--allow-http', '--host', '127.0.0.1', '--transport', 'http-only', ...extraArgs], {
    env: { PATH: '/nonexistent', HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const answers = new Map<number, Record<string, unknown>>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    if (typeof message.id === 'number') answers.set(message.id, message);
  });
  return {
    child,
    stderr: () => stderr,
    notify: (method) => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    async ask(id, method, params = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      const deadline = Date.now() + 15_000;
      while (!answers.has(id)) {
        if (Date.now() > deadline) throw new Error(`no answer to ${method} from mcp-remote:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return answers.get(id)!;
    },
  };
}

describe.skipIf(!BRIDGE)('mcp-remote through the consent page', () => {
  let node: ServeProcess;
  let host: DocumentServer;
  let browser: Browser;
  let configDir: string;
  const bridges: Bridge[] = [];

  beforeAll(async () => {
    host = await startDocumentServer();
    configDir = await mkdtemp(join(tmpdir(), 'portico-mcp-remote-'));
    const port = await freePort();
    // The document host is trusted as an operator's private CA would be: NODE_EXTRA_CA_CERTS.
    node = await startServe(
      {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: `sqlite:${join(configDir, 'portico.sqlite')}`,
        RATE_LIMITS: 'off',
        CIMD_ALLOW_PRIVATE_NETWORKS: 'true',
        NODE_EXTRA_CA_CERTS: host.certPath,
      },
      { port },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const bridge of bridges) bridge.child.kill('SIGTERM');
    await browser?.close();
    node?.child.kill('SIGTERM');
    await node?.exited;
    await host?.close();
    await rm(configDir, { recursive: true, force: true });
  });

  /** The stored inquiry sent from `email`, read from the node's database file. */
  const storedInquiry = (email: string) => {
    const db = new Database(join(configDir, 'portico.sqlite'), { readonly: true });
    try {
      return db.prepare('select channel, client_id as clientId from inquiries where email = ?').get(email) as { channel: string; clientId: string } | undefined;
    } finally {
      db.close();
    }
  };

  /** Seeds a revoked token, starts the bridge, approves in Chromium, and talks MCP through it; the inquiry it sent. */
  async function connectThroughConsent(dir: string, extraArgs: string[], hashParts: string[]) {
    const serverUrl = `${node.url}/mcp`;
    const file = tokensFile(dir, [serverUrl, ...hashParts]);
    await mkdir(join(dir, 'mcp-remote-v1'), { recursive: true });
    await writeFile(file, JSON.stringify({ access_token: 'revoked-long-ago', token_type: 'Bearer' }));
    const bridge = await startBridge(serverUrl, dir, extraArgs);
    bridges.push(bridge);

    const deadline = Date.now() + 20_000;
    let authorizationUrl: string | undefined;
    while (!(authorizationUrl = /Please authorize this client by visiting:\s*(\S+)/.exec(bridge.stderr())?.[1])) {
      if (Date.now() > deadline || bridge.child.exitCode !== null) throw new Error(`mcp-remote printed no authorization URL:\n${bridge.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(authorizationUrl);
    const consentText = await page.locator('main').innerText();
    await page.getByRole('button', { name: WORDS.en.approve }).click();
    await page.waitForURL(/127\.0\.0\.1:\d+\/oauth\/callback/);

    const init = await bridge.ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desktop-client', version: '1.0.0' } });
    expect(init.result).toMatchObject({ serverInfo: { name: 'portico' } });
    bridge.notify('notifications/initialized');
    const listed = await bridge.ask(2, 'tools/list');
    expect((listed.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['contact_service']);
    const email = `desktop-${bridges.length}@example.com`;
    const called = await bridge.ask(3, 'tools/call', { name: 'contact_service', arguments: { name: 'Desktop user', email, message: 'Sent through mcp-remote.', privacy: true } });
    expect(called.result).toMatchObject({ structuredContent: { ok: true } });
    return { stored: storedInquiry(email), consentText };
  }

  it('registers itself (dynamic registration), and its calls carry the token it got', { timeout: 60_000 }, async () => {
    const { stored } = await connectThroughConsent(join(configDir, 'dcr'), [], []);
    expect(stored).toMatchObject({ channel: 'mcp', clientId: expect.stringMatching(/^[\w-]{22}$/) });
  });

  it('identifies itself by its metadata document with --client-metadata-url, and the page names its host', { timeout: 60_000 }, async () => {
    const url = `${host.origin}/mcp-remote.json`;
    host.publish('/mcp-remote.json', clientDocument(url, { client_name: 'mcp-remote', redirect_uris: ['http://127.0.0.1/oauth/callback'] }));
    const { stored, consentText } = await connectThroughConsent(join(configDir, 'cimd'), ['--client-metadata-url', url], [url]);
    expect(stored).toMatchObject({ channel: 'mcp', clientId: url });
    expect(consentText).toContain(WORDS.en.identifiedBy.replace('{host}', new URL(url).host));
    expect(consentText).toContain('localhost');
  });
});
