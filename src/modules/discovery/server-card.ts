// The MCP Server Card (SEP-2127): who we are and how to connect, for clients before they connect (D12).
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { route, type RouteSpec } from '../../route-spec.js';

export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json';

const ServerCardDocument = z.looseObject({ $schema: z.string(), name: z.string(), version: z.string(), description: z.string() }).meta({ id: 'ServerCard' });

export function serverCard(publicUrl: string): object {
  const url = new URL(publicUrl);
  // Reverse-DNS namespace of our host, then the server's name: api.example.com -> com.example.api/portico.
  const namespace = url.hostname.replace(/^\[|\]$/g, '').split('.').reverse().join('.').replace(/[^a-zA-Z0-9.-]/g, '-');
  return {
    $schema: SCHEMA,
    name: `${namespace}/portico`,
    version: '1.0.0',
    title: 'Portico',
    description: 'Send sales, demo and support inquiries to the team of a community management product.',
    websiteUrl: publicUrl,
    remotes: [{ type: 'streamable-http', url: `${publicUrl}/mcp`, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS }],
  };
}

export function serverCardRoutes(publicUrl: string): RouteSpec[] {
  const body = JSON.stringify(serverCard(publicUrl));
  // A strong validator of the exact bytes, so caches and clients can revalidate cheaply (RFC 9110 8.8.3).
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers = { etag, 'cache-control': 'public, max-age=3600' };
  const card = (path: string, operationId: string) =>
    route({
      method: 'GET',
      path,
      operationId,
      summary: 'The MCP Server Card (SEP-2127)',
      tags: ['discovery', 'mcp'],
      cors: 'public',
      responses: { 200: { description: 'The server card.', schema: ServerCardDocument, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      async handler({ headers: request }) {
        const match = request['if-none-match'];
        if (typeof match === 'string' && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
          return { status: 304, headers };
        }
        return { status: 200, body, contentType: 'application/json; charset=utf-8', headers };
      },
    });
  return [card('/.well-known/mcp/server-card.json', 'getServerCard'), card('/mcp/server-card', 'getServerCardAtEndpoint')];
}
