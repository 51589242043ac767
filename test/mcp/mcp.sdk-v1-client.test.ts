// The 1.x SDK client (@modelcontextprotocol/sdk) speaks the 2025-era handshake to /mcp; answers are JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { loadSdkV1 } from '../support/sdk-v1.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

// The 1.x SDK is no part of an install of Portico (tools/mcp-clients).
const sdk = await loadSdkV1();

describe.skipIf(!sdk)('the MCP SDK 1.x client against POST /mcp', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { port: await freePort() });
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });

  it('initializes, lists and calls contact_service, and reads the contact-form app', async () => {
    const { Client, StreamableHTTPClientTransport } = sdk!;
    const client = new Client({ name: 'legacy-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
    try {
      expect(client.getServerVersion()?.name).toBe('portico');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['contact_service']);
      const result = await client.callTool({ name: 'contact_service', arguments: { name: 'Legacy', email: 'legacy@example.com', message: 'Hello from 2025.', privacy: true } });
      expect(result.isError).toBeFalsy();
      expect(smtp.messages.at(-1)?.replyTo?.value[0]?.address).toBe('legacy@example.com');
      expect(tools[0]?._meta).toMatchObject({ ui: { resourceUri: 'ui://portico/contact-form' } });
      const { contents } = await client.readResource({ uri: 'ui://portico/contact-form' });
      expect(contents[0]).toMatchObject({ uri: 'ui://portico/contact-form', mimeType: 'text/html;profile=mcp-app' });
    } finally {
      await client.close();
    }
  });
});
