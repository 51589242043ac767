// The MCP Server Card (SEP-2127, the experimental-ext-server-card extension): who we are and how to connect,
// for clients before they connect (D12), and the AI Catalog that lists it.
import * as z from 'zod';
import { route, type RouteSpec } from '../common/route-spec.js';
import { cachedDocument } from './cached-document.js';

export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
// The card schema is the v1 family, edited in place; a breaking change would start v2.
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
const CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** docs/discovery.md of the extension: the card sits at the streamable-HTTP endpoint's URL plus /server-card. */
const CARD_PATH = '/mcp/server-card';

const ServerCardDocument = z.looseObject({ $schema: z.string(), name: z.string(), version: z.string(), description: z.string() }).meta({ id: 'ServerCard' });
const AiCatalogDocument = z.looseObject({ specVersion: z.string(), entries: z.array(z.looseObject({ identifier: z.string(), type: z.string() })) }).meta({ id: 'AiCatalog' });

/** Reverse-DNS namespace of our host: api.example.com -> com.example.api. */
const namespaceOf = (publicUrl: string) =>
  new URL(publicUrl).hostname
    .replace(/^\[|\]$/g, '')
    .split('.')
    .reverse()
    .join('.')
    .replace(/[^a-zA-Z0-9.-]/g, '-');

/** The server card: named in the reverse-DNS namespace of PUBLIC_URL's host, pointing at its /mcp endpoint. */
export function serverCard(publicUrl: string): object {
  return {
    $schema: SCHEMA,
    name: `${namespaceOf(publicUrl)}/portico`,
    version: '1.0.0',
    title: 'Portico',
    description: 'Send sales, demo and support inquiries to the team of a community management product.',
    websiteUrl: publicUrl,
    remotes: [{ type: 'streamable-http', url: `${publicUrl}/mcp`, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS }],
  };
}

/** The AI Catalog (specVersion 1.0): one entry, our card, by URL, with an identifier of the urn:air form. */
export function aiCatalog(publicUrl: string): object {
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '');
  return { specVersion: '1.0', entries: [{ identifier: `urn:air:${host}:mcp:portico`, type: CARD_MEDIA_TYPE, url: `${publicUrl}${CARD_PATH}` }] };
}

/**
 * The server card at /mcp/server-card and at /.well-known/mcp/server-card.json, and the AI Catalog that
 * lists it; each with an ETag, readable from any origin.
 */
export function serverCardRoutes(publicUrl: string): RouteSpec[] {
  const cardJson = () => JSON.stringify(serverCard(publicUrl));
  const documentRoute = (path: string, operationId: string, summary: string, mediaType: string, schema: z.ZodType, build: () => string) => {
    const document = cachedDocument(build, `${mediaType}; charset=utf-8`);
    return route({
      method: 'GET',
      path,
      operationId,
      summary,
      tags: ['discovery', 'mcp'],
      cors: 'public',
      responses: { 200: { description: summary, contentType: mediaType, schema, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      prepare: document.prepare,
      handler: async ({ headers }) => document.reply(headers['if-none-match']),
    });
  };
  return [
    documentRoute(CARD_PATH, 'getServerCardAtEndpoint', 'The MCP Server Card (SEP-2127)', CARD_MEDIA_TYPE, ServerCardDocument, cardJson),
    // The contract's address; the extension now recommends the one above, which the catalog names.
    documentRoute('/.well-known/mcp/server-card.json', 'getServerCard', 'The MCP Server Card (SEP-2127), at its well-known address', 'application/json', ServerCardDocument, cardJson),
    documentRoute('/.well-known/ai-catalog.json', 'getAiCatalog', 'The AI Catalog listing the MCP Server Card', CATALOG_MEDIA_TYPE, AiCatalogDocument, () => JSON.stringify(aiCatalog(publicUrl))),
  ];
}
