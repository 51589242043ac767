// Discovery routes: the OpenAPI document as JSON (two paths), built once at start, and YAML, built once
// at its first request.
import * as z from 'zod';
import { route, type RouteSpec } from '../common/route-spec.js';
import { cachedDocument, type CachedDocument } from './cached-document.js';
import { buildOpenApi, type OpenApiSettings } from './openapi.js';

const OpenApiDocument = z.looseObject({ openapi: z.literal('3.1.0') }).meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1.0 document.' });

/** `allRoutes` is read when the routes are prepared, so the document includes every route mounted with these. */
export function openApiRoutes(settings: OpenApiSettings, allRoutes: () => readonly RouteSpec[]): RouteSpec[] {
  let built: object | undefined;
  const document = () => (built ??= buildOpenApi(allRoutes(), settings));
  const json = cachedDocument(() => JSON.stringify(document()), 'application/json; charset=utf-8');
  // Not at start: loading `yaml` and serializing the document with it would delay the first /healthz
  // (docs/performance.md, "Start") for a path few clients ask for.
  let yaml: Promise<CachedDocument> | undefined;
  const yamlDocument = () => (yaml ??= import('yaml').then(({ stringify }) => cachedDocument(() => stringify(document(), { aliasDuplicateObjects: false }), 'application/yaml; charset=utf-8')));
  const jsonRoute = (path: string, operationId: string) =>
    route({
      method: 'GET',
      path,
      operationId,
      summary: 'The OpenAPI 3.1 description of this API',
      tags: ['discovery'],
      cors: 'public',
      responses: { 200: { description: 'The OpenAPI document.', schema: OpenApiDocument, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      prepare: json.prepare,
      handler: async ({ headers }) => json.reply(headers['if-none-match']),
    });
  return [
    jsonRoute('/openapi.json', 'getOpenApi'),
    jsonRoute('/api/openapi.json', 'getOpenApiAlias'),
    route({
      method: 'GET',
      path: '/api/openapi.yaml',
      operationId: 'getOpenApiYaml',
      summary: 'The OpenAPI 3.1 description of this API, in YAML',
      tags: ['discovery'],
      cors: 'public',
      responses: { 200: { description: 'The OpenAPI document.', contentType: 'application/yaml', schema: OpenApiDocument, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      handler: async ({ headers }) => (await yamlDocument()).reply(headers['if-none-match']),
    }),
  ];
}
