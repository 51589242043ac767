// Every `sh` block of docs/oauth.md runs, in order, against a real server, and says what the prose says.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

const run = promisify(execFile);
const tools = ['curl', 'jq', 'openssl'];
const missing = (
  await Promise.all(
    tools.map((tool) =>
      run('sh', ['-c', `command -v ${tool}`]).then(
        () => undefined,
        () => tool,
      ),
    ),
  )
).filter(Boolean);
if (missing.length) console.warn(`skipping docs/oauth.md walkthrough: ${missing.join(', ')} not installed`);

describe.skipIf(missing.length > 0)('the docs/oauth.md walkthrough', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(() => api.close());

  it('runs from discovery to revocation with the outputs the prose promises', async () => {
    const doc = await readFile(new URL('../../docs/oauth.md', import.meta.url), 'utf8');
    const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(blocks.length).toBeGreaterThanOrEqual(10);
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const { stdout } = await run('bash', ['-c', script], { env: { PATH: process.env.PATH, BASE: api.url }, timeout: 30_000 });
    const lines = stdout.trim().split('\n');
    expect(lines).toEqual([
      `${api.url}/oauth/token`,
      JSON.stringify({ resource: `${api.url}/api/contact`, scopes_supported: ['contact:write'] }),
      JSON.stringify({ token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], client_secret_expires_at: 0 }),
      JSON.stringify({ token_type: 'Bearer', expires_in: 3600, scope: 'contact:write', resource: `${api.url}/api/contact` }),
      '{"ok":true}',
      'state matches',
      JSON.stringify({ token_type: 'Bearer', expires_in: 3600, scope: 'contact:write', has_refresh: true }),
      'rotated',
      '200',
      '200',
    ]);
    const [inquiry] = await api.deps.inquiries.list({ limit: 1 });
    // The key is kept under its sender, the client the walkthrough registered (D14).
    expect(inquiry).toMatchObject({ channel: 'api', idempotencyKey: `${inquiry!.clientId} crm-lead-4711`, status: 'sent' });
  });
});
