// The 1.x MCP SDK's client, from tools/mcp-clients: it is no part of an install of Portico, so its types are
// not either. What the tests use of it is typed here, as @modelcontextprotocol/sdk 1.32 declares it.
import { importTestTool } from './tools.js';

export interface OAuthClientProvider {
  readonly redirectUrl: string | URL | undefined;
  readonly clientMetadata: Record<string, unknown> & { redirect_uris: string[] };
  clientInformation(): unknown;
  saveClientInformation?(clientInformation: unknown): void | Promise<void>;
  tokens(): unknown;
  saveTokens(tokens: unknown): void | Promise<void>;
  redirectToAuthorization(authorizationUrl: URL): void | Promise<void>;
  saveCodeVerifier(codeVerifier: string): void | Promise<void>;
  codeVerifier(): string | Promise<string>;
}

export interface StreamableHTTPClientTransport {
  finishAuth(authorizationCode: string): Promise<void>;
}

export interface Client {
  connect(transport: StreamableHTTPClientTransport): Promise<void>;
  close(): Promise<void>;
  getServerVersion(): { name: string; version: string } | undefined;
  listTools(): Promise<{ tools: { name: string; _meta?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ isError?: boolean; content?: unknown }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; mimeType?: string }[] }>;
}

export interface SdkV1 {
  Client: new (info: { name: string; version: string }) => Client;
  StreamableHTTPClientTransport: new (url: URL, options?: { authProvider?: OAuthClientProvider }) => StreamableHTTPClientTransport;
  UnauthorizedError: new (message?: string) => Error;
}

const DIST = 'node_modules/@modelcontextprotocol/sdk/dist/esm/client';

/** The SDK's client classes (one copy of each module, so the transport throws the UnauthorizedError given here); undefined, with the skip said, if tools/mcp-clients cannot be installed. */
export async function loadSdkV1(): Promise<SdkV1 | undefined> {
  const index = await importTestTool<Pick<SdkV1, 'Client'>>('mcp-clients', `${DIST}/index.js`);
  if (!index) return undefined;
  const http = await importTestTool<Pick<SdkV1, 'StreamableHTTPClientTransport'>>('mcp-clients', `${DIST}/streamableHttp.js`);
  const auth = await importTestTool<Pick<SdkV1, 'UnauthorizedError'>>('mcp-clients', `${DIST}/auth.js`);
  if (!http || !auth) return undefined;
  return { Client: index.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, UnauthorizedError: auth.UnauthorizedError };
}
