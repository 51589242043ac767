// GET /: where to go from the root, for a person (a small HTML page) or a program (JSON), by Accept;
// and /docs/ sent on to /docs.
import * as z from 'zod';
import { escapeHtml } from '../common/html.js';
import { route, type RouteSpec } from '../common/route-spec.js';

const Links = z
  .object({
    name: z.string(),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'HomeLinks', examples: [{ name: 'Portico', links: { docs: 'https://api.example.com/docs', openapi: 'https://api.example.com/openapi.json' } }] });

/** Whether the client prefers HTML: it names text/html before (or without) application/json (RFC 9110 12.5.1, roughly). */
function wantsHtml(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  const html = value.indexOf('text/html');
  const json = value.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

/** GET / as JSON links, or a small HTML page when Accept prefers text/html; GET /docs/ sends on to /docs. */
export function homeRoutes(publicUrl: string): RouteSpec[] {
  const links: Record<string, [string, string]> = {
    docs: [`${publicUrl}/docs`, 'The API reference'],
    openapi: [`${publicUrl}/openapi.json`, 'The OpenAPI document'],
    mcp: [`${publicUrl}/mcp`, 'The MCP server (Streamable HTTP)'],
    embed: [`${publicUrl}/embed`, 'The contact form for a web page'],
    authorizationServer: [`${publicUrl}/.well-known/oauth-authorization-server`, 'OAuth authorization server metadata'],
    protectedResource: [`${publicUrl}/.well-known/oauth-protected-resource`, 'OAuth protected resource metadata'],
    serverCard: [`${publicUrl}/.well-known/mcp/server-card.json`, 'The MCP server card'],
  };
  const json = JSON.stringify({ name: 'Portico', links: Object.fromEntries(Object.entries(links).map(([key, [url]]) => [key, url])) });
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Portico</title></head>
<body><main><h1>Portico</h1><ul>
${Object.values(links)
  .map(([url, text]) => `<li><a href="${escapeHtml(url)}">${escapeHtml(text)}</a></li>`)
  .join('\n')}
</ul></main></body></html>
`;
  const htmlHeaders = { vary: 'Accept', 'cache-control': 'no-cache', 'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'" };
  return [
    route({
      method: 'GET',
      path: '/',
      operationId: 'getHome',
      summary: 'Links to the documentation, the OpenAPI document, the MCP endpoint and the metadata',
      description: 'JSON, or a small HTML page when the client prefers text/html.',
      tags: ['discovery'],
      cors: 'public',
      responses: { 200: { description: 'The links.', schema: Links, alternatives: [{ contentType: 'text/html', schema: z.string() }], headers: ['Vary'] } },
      handler: async ({ headers }) =>
        wantsHtml(headers.accept)
          ? { status: 200, body: html, contentType: 'text/html; charset=utf-8', headers: htmlHeaders }
          : { status: 200, body: json, contentType: 'application/json; charset=utf-8', headers: { vary: 'Accept', 'cache-control': 'no-cache' } },
    }),
    route({
      method: 'GET',
      path: '/docs/',
      operationId: 'redirectDocs',
      summary: 'The API reference page is /docs',
      tags: ['discovery'],
      // An address people type, not an operation: OpenAPI paths carry no trailing slash.
      hidden: true,
      responses: { 308: { description: 'To /docs.', headers: ['Location'] } },
      handler: async () => ({ status: 308, headers: { location: `${publicUrl}/docs` } }),
    }),
  ];
}
