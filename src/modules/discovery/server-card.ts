// The MCP Server Card (SEP-2127): who we are and how to connect, for clients before they connect (D12).
import * as z from 'zod';
import { route, type RouteSpec } from '../../route-spec.js';
import { cachedDocument } from './cached-document.js';

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
  const document = cachedDocument(() => JSON.stringify(serverCard(publicUrl)), 'application/json; charset=utf-8');
  const card = (path: string, operationId: string) =>
    route({
      method: 'GET',
      path,
      operationId,
      summary: 'The MCP Server Card (SEP-2127)',
      tags: ['discovery', 'mcp'],
      cors: 'public',
      responses: { 200: { description: 'The server card.', schema: ServerCardDocument, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      prepare: document.prepare,
      handler: ({ headers }) => document.reply(headers['if-none-match']),
    });
  return [card('/.well-known/mcp/server-card.json', 'getServerCard'), card('/mcp/server-card', 'getServerCardAtEndpoint')];
}
