// A loopback HTTPS server that publishes client ID metadata documents as hosts do, and misbehaves as a
// hostile or broken host would; its certificate is made for the test and trusted only where told.
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificate } from './smtp-tls.js';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface DocumentServer {
  /** https://127.0.0.1:PORT */
  origin: string;
  /** The PEM certificate, to trust (NODE_EXTRA_CA_CERTS, or DepsOptions.metadataDocumentCa). */
  cert: string;
  certPath: string;
  /** Requests received, by path. */
  hits: string[];
  /** Serves `body` as JSON at `path` (with `headers`); its URL. */
  publish(path: string, body: unknown, headers?: Record<string, string>): string;
  /** Answers `path` with `handler`; its URL. */
  route(path: string, handler: Handler): string;
  /** `path` answers 404 from now on. */
  remove(path: string): void;
  close(): Promise<void>;
}

/** The document a host publishes at `url`, as Claude's and the MCP SDK's look; override any member. */
export const clientDocument = (url: string, fields: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Hosted MCP client',
  client_uri: new URL(url).origin,
  redirect_uris: ['https://hosted.example/api/mcp/auth_callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...fields,
});

export async function startDocumentServer(): Promise<DocumentServer> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-cimd-'));
  // Valid for the loopback address and for the names tests resolve to it themselves (.test is reserved, RFC 6761).
  const { certPath, key, cert } = await makeCertificate(dir, '127.0.0.1', 'rebinding.test', 'metadata.hosted.test');
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const server = createServer({ key, cert }, (request, response) => {
    hits.push(request.url ?? '');
    const handler = routes.get(request.url ?? '');
    if (handler) return handler(request, response);
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const route = (path: string, handler: Handler) => {
    routes.set(path, handler);
    return `${origin}${path}`;
  };
  return {
    origin,
    cert,
    certPath,
    hits,
    route,
    publish: (path, body, headers = {}) => route(path, (_request, response) => response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))),
    remove: (path) => void routes.delete(path),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
