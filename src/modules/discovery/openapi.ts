// The OpenAPI 3.1.0 document, derived from the route tables so that it cannot drift from them.
import * as z from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors.js';
import { policyHeader, type RateLimits } from '../../config/rate-limits.js';
import type { ResponseDoc, RouteSpec } from '../common/route-spec.js';
import { SCOPES } from '../oauth/scopes.js';

export interface OpenApiSettings {
  publicUrl: string;
  sandboxUrl: string | undefined;
  rateLimits: RateLimits;
}

const ErrorBody = z
  .object({
    error: z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]),
    error_description: z.string(),
    ok: z.literal(false),
  })
  .meta({
    id: 'Error',
    description: 'Every error response. `error` is a stable code; `error_description` is for people.',
    examples: [{ error: 'invalid_request', error_description: 'email: email must be a valid e-mail address', ok: false }],
  });

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
const HEADER_DOCS: Record<string, { description: string; schema: object }> = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'The limit as `limit;w=window-seconds`.', schema: { type: 'string' } },
  'WWW-Authenticate': {
    description: 'The challenge: Bearer (RFC 6750, with resource_metadata per RFC 9728) on protected routes; Basic for OAuth client authentication (RFC 6749 section 2.3.1).',
    schema: { type: 'string' },
  },
  Allow: { description: 'The methods the path serves.', schema: { type: 'string' } },
  ETag: { description: 'A strong validator of the document; send it back in If-None-Match.', schema: { type: 'string' } },
  Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri' } },
};

/**
 * The OpenAPI 3.1.0 document of every route not hidden: named schemas as components, each route's errors
 * with the catalogue's meanings, and the CORS preflights.
 */
export function buildOpenApi(routes: readonly RouteSpec[], settings: OpenApiSettings): object {
  const components: Record<string, object> = {};
  // Named schemas (meta id) become components; Zod emits them as $defs, which move there too.
  const schemaRef = (schema: z.ZodType): object => {
    const { $defs, ...json } = toJsonSchema(schema) as { $defs?: Record<string, object>; $ref?: string };
    Object.assign(components, $defs);
    return json;
  };
  const errorRef = schemaRef(ErrorBody);

  const paths: Record<string, Record<string, object>> = {};
  for (const spec of routes.filter((r) => !r.hidden)) {
    const item = (paths[spec.path] ??= {});
    item[spec.method.toLowerCase()] = operation(spec, settings, schemaRef, errorRef);
    if (spec.cors && !item.options) {
      item.options = {
        operationId: `${spec.operationId}Preflight`,
        summary: `CORS preflight for ${spec.path}`,
        tags: spec.tags,
        security: [],
        responses: { 204: { description: 'Preflight answered; allow headers are present only for allowed origins.' } },
      };
    }
  }

  const tokenUrl = `${settings.publicUrl}/oauth/token`;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico integration API',
      version: '1.0.0',
      description: 'Contact inquiries, an MCP server, OAuth 2.0 client registration and tokens, and discovery documents.',
    },
    servers: [{ url: settings.publicUrl, description: 'production' }, ...(settings.sandboxUrl ? [{ url: settings.sandboxUrl, description: 'sandbox: the same API, for testing' }] : [])],
    security: [{ oauth2: ['docs:read'] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'OAuth client authentication at /oauth/token and /oauth/revoke: client_id and client_secret, form-urlencoded, then base64 (RFC 6749 section 2.3.1). client_secret_post and public clients send them in the form instead.',
        },
        oauth2: {
          type: 'oauth2',
          flows: {
            clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
            authorizationCode: { authorizationUrl: `${settings.publicUrl}/oauth/authorize`, tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
          },
        },
      },
    },
  };
}

function operation(spec: RouteSpec, settings: OpenApiSettings, schemaRef: (s: z.ZodType) => object, errorRef: object): object {
  const limit = spec.limit ? settings.rateLimits[spec.limit] : undefined;
  const limitHeaders = limit ? RATE_LIMIT_HEADERS : [];
  const responses: Record<string, object> = {};
  for (const [status, doc] of Object.entries(spec.responses)) responses[status] = response(doc, limitHeaders, schemaRef);

  // Every route with a body can refuse it: malformed, too large, or of another content type.
  const implied: ErrorCode[] = spec.body ? ['invalid_request', 'payload_too_large', 'unsupported_media_type'] : [];
  const codes = [...new Set([...implied, ...(spec.errors ?? [])])].filter((code) => code !== 'rate_limited' || limit);
  const byStatus = new Map<number, ErrorCode[]>();
  const statusOf = (code: ErrorCode) => (code === 'insufficient_scope' ? spec.auth?.insufficientScopeStatus : undefined) ?? ERROR_CATALOGUE[code].status;
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  for (const [statusNumber, group] of byStatus) {
    const status = String(statusNumber);
    const headers = [
      ...limitHeaders,
      ...(status === '429' || status === '503' || status === '409' ? ['Retry-After'] : []),
      ...(status === '401' || (status === '403' && spec.auth) ? ['WWW-Authenticate'] : []),
    ];
    const errors = {
      description: group.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].meaning}`).join(' '),
      headers: headerDocs(headers, status === '429' ? ['Retry-After', ...limitHeaders] : []),
      content: { 'application/json': { schema: errorRef } },
    };
    responses[status] = responses[status] ? mergeResponses(responses[status] as ResponseObject, errors) : errors;
  }

  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: spec.auth ? [{ oauth2: [spec.auth.scope] }, {}] : spec.clientAuthentication ? [{ clientBasic: [] }, {}] : [],
    ...(spec.headerParams?.length ? { parameters: spec.headerParams.map((p) => ({ name: p.name, in: 'header', required: false, description: p.description, schema: toJsonSchema(p.schema) })) } : {}),
    ...(spec.body ? { requestBody: { required: true, content: requestContent(spec, schemaRef(spec.body)) } } : {}),
    ...(limit ? { 'x-rate-limit': policyHeader(limit) } : {}),
    responses,
  };
}

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/** Every content type the route accepts, each with the same schema (forms carry the same fields). */
function requestContent(spec: RouteSpec, schema: object): Record<string, object> {
  return Object.fromEntries((spec.bodyTypes ?? ['json']).map((type) => [MEDIA_TYPES[type], { schema }]));
}

function response(doc: ResponseDoc, limitHeaders: string[], schemaRef: (s: z.ZodType) => object): object {
  const headers = headerDocs([...limitHeaders, ...(doc.headers ?? [])]);
  return {
    description: doc.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(doc.schema
      ? {
          content: {
            [doc.contentType ?? 'application/json']: { schema: schemaRef(doc.schema) },
            ...Object.fromEntries((doc.alternatives ?? []).map((a) => [a.contentType, { schema: schemaRef(a.schema) }])),
          },
        }
      : {}),
  };
}

/** `required`: the headers always present on this response (the contract: 429 carries Retry-After and RateLimit-*). */
function headerDocs(names: string[], required: readonly string[] = []): Record<string, object> {
  return Object.fromEntries([...new Set(names)].map((name) => [name, { ...(HEADER_DOCS[name] ?? { schema: { type: 'string' } }), ...(required.includes(name) ? { required: true } : {}) }]));
}

interface ResponseObject {
  description: string;
  headers?: Record<string, object>;
  content?: Record<string, { schema: object }>;
}

/** One status, two kinds of answer (a route's own page or JSON-RPC error, and the Error body): either may come. */
function mergeResponses(own: ResponseObject, errors: ResponseObject): ResponseObject {
  const content: Record<string, { schema: object }> = { ...own.content };
  for (const [type, media] of Object.entries(errors.content ?? {})) {
    content[type] = content[type] ? { schema: { anyOf: [content[type].schema, media.schema] } } : media;
  }
  const headers = { ...own.headers, ...errors.headers };
  return { description: `${own.description} ${errors.description}`, ...(Object.keys(headers).length ? { headers } : {}), content };
}

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of the request side of a schema, refs pointing at components. */
function toJsonSchema(schema: z.ZodType): object {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as object;
}
