// The official MCP SDK client (2.x) connects to /mcp, lists contact_service and calls it: an e-mail arrives.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

describe('the MCP SDK 2.x client against POST /mcp', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  let client: Client;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startApp({ SMTP_URL: smtp.url, RATE_LIMITS: 'off' }, { port: await freePort() });
    client = new Client({ name: 'portico-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
    await api.close();
    await smtp.close();
  });

  it('lists exactly one tool, contact_service, with the ContactRequest limits in its input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['contact_service']);
    const schema = tools[0]!.inputSchema as { properties: Record<string, { maxLength?: number; enum?: string[] }>; required: string[] };
    expect(schema.properties.name?.maxLength).toBe(120);
    expect(schema.properties.message?.maxLength).toBe(5000);
    expect(schema.properties.locale?.enum).toEqual(['es', 'en', 'ca', 'ru', 'eu', 'gl']);
    expect(schema.properties.topic?.enum).toEqual(['sales', 'demo', 'support']);
    expect(schema.properties.consentText?.maxLength).toBe(1000);
    expect(schema.properties).not.toHaveProperty('turnstileToken');
    expect(schema.properties).not.toHaveProperty('website');
    expect(schema.required.sort()).toEqual(['email', 'message', 'name', 'privacy']);
  });

  it('sends the inquiry by e-mail and answers with text and structuredContent', async () => {
    const result = await client.callTool({
      name: 'contact_service',
      arguments: { name: 'Agent Smith', email: 'agent@example.com', message: 'A demo for 12 buildings, please.', locale: 'en', privacy: true },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true });
    expect((result.content as { text: string }[])[0]?.text).toContain('delivered');
    expect(smtp.messages.at(-1)?.replyTo?.value[0]?.address).toBe('agent@example.com');
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ channel: 'mcp', status: 'sent', locale: 'en' });
  });

  it('answers invalid arguments as every other refusal: isError, invalid_request and the fields at fault', async () => {
    const result = await client.callTool({ name: 'contact_service', arguments: { name: 'X', email: 'not-an-email', message: 'hi', privacy: false } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ ok: false, error: 'invalid_request', fields: ['email', 'privacy'] });
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^The inquiry was not sent: email.*; privacy/);
  });
});

describe('the contact-form MCP App through the SDK 2.x client', () => {
  let api: TestApp;
  let client: Client;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' }, { port: await freePort() });
    client = new Client({ name: 'portico-app-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
    await api.close();
  });

  it('links the tool to ui://portico/contact-form, under both the current and the legacy key', async () => {
    const [tool] = (await client.listTools()).tools;
    expect(tool?._meta).toMatchObject({ ui: { resourceUri: 'ui://portico/contact-form' }, 'ui/resourceUri': 'ui://portico/contact-form' });
  });

  it('lists and reads the app: one self-contained HTML document with an empty CSP allow-list', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'ui://portico/contact-form', mimeType: 'text/html;profile=mcp-app' })]);
    const { contents } = await client.readResource({ uri: 'ui://portico/contact-form' });
    const [page] = contents as unknown as { text: string; mimeType: string; _meta: { ui: { csp: object } } }[];
    expect(page?.mimeType).toBe('text/html;profile=mcp-app');
    expect(page?.text).toMatch(/^<!doctype html>/i);
    expect(page?.text).not.toMatch(/https?:/);
    expect(page?._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });
  });
});
