// The bench's scenarios: each with the ratio to the bare server it must reach at 50 connections, but
// the two that send an e-mail: those are judged by the budget a person feels (CPU per inquiry, p99
// latency), never by a throughput ratio (docs/design.md, "E-mail goes out through nodemailer").
import { EACH_REQUEST, type BenchRequest } from './wrk.js';

export interface Scenario extends BenchRequest {
  name: string;
  /** Portico ÷ bare at 50 connections; informational when absent. */
  target?: number;
  /**
   * Scenarios that deliver an e-mail are judged as users feel them, at 50 connections against the
   * loopback sink: CPU per request and p99 latency. Their ratio is printed, not judged.
   */
  mailBudget?: { cpuMsPerRequest: number; p99Ms: number };
  expectedStatus: number;
  /** Which Portico instance answers it: rate limits off, or the contract's default limits. */
  instance: 'main' | 'limited';
}

const MAIL_BUDGET = { cpuMsPerRequest: 1.5, p99Ms: 100 };
// Every inquiry a message of its own: the same one again within DUPLICATE_WINDOW would be a duplicate, never delivered.
const INQUIRY = { name: 'Ana García', email: 'bench@example.com', message: `We manage 40 buildings and would like a demo. Ref ${EACH_REQUEST}.`, privacy: true };
const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_ACCEPT = { ...JSON_HEADERS, accept: 'application/json, text/event-stream' };
const MCP_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const modern = (method: string, name?: string) => ({ ...MCP_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

export interface Credentials {
  /** `Basic ...` for a confidential client allowed all three scopes. */
  basic: string;
  /** Bearer tokens for the two resources. */
  contactToken: string;
  mcpToken: string;
}

export function scenarios(credentials: Credentials): Scenario[] {
  const main = { instance: 'main' as const, expectedStatus: 200 };
  return [
    { ...main, name: 'GET /healthz', method: 'GET', path: '/healthz' },
    { ...main, name: 'GET /.well-known/oauth-authorization-server', target: 0.5, method: 'GET', path: '/.well-known/oauth-authorization-server' },
    { ...main, name: 'GET /openapi.json', target: 0.5, method: 'GET', path: '/openapi.json' },
    {
      ...main,
      name: 'POST /oauth/token (client_credentials, Basic)',
      target: 0.28,
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: credentials.basic },
      body: 'grant_type=client_credentials&scope=contact%3Awrite',
    },
    {
      ...main,
      name: 'POST /mcp tools/list (2025-11-25)',
      target: 0.35,
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_ACCEPT, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
    {
      ...main,
      name: 'POST /mcp tools/list (2026-07-28)',
      target: 0.35,
      method: 'POST',
      path: '/mcp',
      headers: modern('tools/list'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MCP_META } }),
    },
    {
      ...main,
      name: 'POST /mcp tools/call contact_service (Bearer)',
      mailBudget: MAIL_BUDGET,
      method: 'POST',
      path: '/mcp',
      headers: { ...modern('tools/call', 'contact_service'), authorization: `Bearer ${credentials.mcpToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'contact_service', arguments: INQUIRY, _meta: MCP_META } }),
    },
    {
      ...main,
      name: 'POST /api/contact (Bearer contact:write)',
      mailBudget: MAIL_BUDGET,
      method: 'POST',
      path: '/api/contact',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${credentials.contactToken}` },
      body: JSON.stringify(INQUIRY),
    },
    {
      name: 'POST /api/contact rate-limited (429)',
      target: 0.2,
      instance: 'limited',
      expectedStatus: 429,
      method: 'POST',
      path: '/api/contact',
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...INQUIRY, turnstileToken: 'XXXX.DUMMY.TOKEN.XXXX' }),
    },
    {
      ...main,
      name: 'POST /api/contact invalid body (400)',
      target: 0.2,
      expectedStatus: 400,
      method: 'POST',
      path: '/api/contact',
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...INQUIRY, email: 'not an address' }),
    },
    {
      ...main,
      name: 'POST /api/contact invalid body, every field (400)',
      target: 0.2,
      expectedStatus: 400,
      method: 'POST',
      path: '/api/contact',
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: '', email: 'not-an-address', message: '', privacy: false }),
    },
  ];
}

/** A client registered on the node at `baseUrl`, and the tokens the scenarios send. */
export async function credentials(baseUrl: string): Promise<Credentials> {
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' }),
  });
  if (registered.status !== 201) throw new Error(`registering the bench client: ${registered.status} ${await registered.text()}`);
  const { client_id: id, client_secret: secret } = (await registered.json()) as { client_id: string; client_secret: string };
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const token = async (scope: string, resource: string) => {
    const response = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
    });
    if (response.status !== 200) throw new Error(`token for ${scope}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  return { basic, contactToken: await token('contact:write', `${baseUrl}/api/contact`), mcpToken: await token('mcp:invoke', `${baseUrl}/mcp`) };
}
