// The MCP SDK v2 client against a real `portico serve`: with `clientMetadataUrl` it identifies itself by a
// client ID metadata document (the serve process trusts the test CA through NODE_EXTRA_CA_CERTS, as an
// operator's private CA would be); without it, it falls back to dynamic registration.
import { auth } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../support/metadata-document-server.js';
import { memoryProvider, type MemoryProvider } from '../support/sdk-oauth-provider.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const REDIRECT = 'http://127.0.0.1:33418/callback';

const CLIENT_METADATA = { client_name: 'MCP SDK', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };

describe('the MCP SDK client connecting to portico serve', () => {
  let host: DocumentServer;
  let node: ServeProcess;
  beforeAll(async () => {
    host = await startDocumentServer();
    const port = await freePort();
    node = await startServe({ PUBLIC_URL: `http://127.0.0.1:${port}`, CIMD_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: host.certPath }, { port });
  });
  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await host.close();
  });

  /** The SDK's whole flow for /mcp; the tokens it saved, then tools/list with them. */
  async function connect(sdk: MemoryProvider) {
    const serverUrl = `${node.url}/mcp`;
    expect(await auth(sdk.provider, { serverUrl })).toBe('REDIRECT');
    const landed = sdk.landedOn();
    expect(await auth(sdk.provider, { serverUrl, authorizationCode: landed.searchParams.get('code')!, iss: landed.searchParams.get('iss')! })).toBe('AUTHORIZED');
    const tokens = sdk.saved.tokens!;
    const listed = await fetch(serverUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.tools.map((t: { name: string }) => t.name)).toEqual(['contact_service']);
    return tokens;
  }

  it('uses its metadata document as its client_id when the server advertises support, registering nothing', async () => {
    const url = host.publish('/sdk-client.json', clientDocument(`${host.origin}/sdk-client.json`, { client_name: 'MCP SDK', redirect_uris: [REDIRECT] }));
    const sdk = memoryProvider(CLIENT_METADATA, { clientMetadataUrl: url });
    const tokens = await connect(sdk);
    expect(sdk.saved.client?.client_id).toBe(url);
    expect(tokens.scope).toBe('mcp:invoke');
    expect(host.hits.filter((path) => path === '/sdk-client.json')).toHaveLength(1);
  });

  it('falls back to dynamic registration without one', async () => {
    const sdk = memoryProvider(CLIENT_METADATA);
    await connect(sdk);
    expect(sdk.saved.client?.client_id).toMatch(/^[\w-]{22}$/);
  });
});
