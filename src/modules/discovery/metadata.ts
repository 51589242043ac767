// RFC 8414 authorization-server metadata and RFC 9728 protected-resource metadata, from the routes.
import * as z from 'zod';
import { route, type RouteSpec } from '../common/route-spec.js';
import { cachedDocument } from './cached-document.js';
import { LOCALES } from '../common/locales.js';
import { AUTH_METHODS, GRANT_TYPES } from '../oauth/register.js';
import { ALL_SCOPES } from '../oauth/scopes.js';
import type { ProtectedResource } from '../oauth/oauth-deps.js';

const Metadata = z.looseObject({}).meta({ id: 'DiscoveryDocument', description: 'A discovery document (JSON object).' });
const PRM_PATH = '/.well-known/oauth-protected-resource';

/** Every route that accepts Bearer tokens is a protected resource, identified by its absolute URL. */
export function protectedResources(routes: readonly RouteSpec[], publicUrl: string): ProtectedResource[] {
  const seen = new Map<string, ProtectedResource>();
  for (const spec of routes) if (spec.auth && !seen.has(spec.path)) seen.set(spec.path, { resource: `${publicUrl}${spec.path}`, scope: spec.auth.scope });
  return [...seen.values()];
}

export interface AuthorizationServerFeatures {
  /** D13: an https client_id names a client ID metadata document. */
  clientIdMetadataDocuments: boolean;
}

/**
 * The RFC 8414 document: the endpoints the routes advertise (`advertiseAs`), and
 * client_id_metadata_document_supported only when CIMD is on.
 */
export function authorizationServerMetadata(routes: readonly RouteSpec[], issuer: string, features: AuthorizationServerFeatures): object {
  const endpoints = Object.fromEntries(routes.filter((r) => r.advertiseAs).map((r) => [r.advertiseAs, `${issuer}${r.path}`])) as Record<string, string>;
  return {
    issuer,
    ...endpoints,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: GRANT_TYPES,
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: LOCALES,
    service_documentation: `${issuer}/openapi.json`,
    // draft-ietf-oauth-client-id-metadata-document section 5; `none` stays in the auth methods above,
    // which is how documented (public) clients authenticate.
    ...(features.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
  };
}

/**
 * The RFC 8414 document and the RFC 9728 ones (the API's, and one per protected route), with ETags. The
 * protected routes must be in `routes()` when this is called; the RFC 8414 one reads it again when prepared.
 */
export function discoveryRoutes(routes: () => readonly RouteSpec[], publicUrl: string, features: AuthorizationServerFeatures): RouteSpec[] {
  const documentRoute = (path: string, operationId: string, summary: string, build: () => object) => {
    const document = cachedDocument(() => JSON.stringify(build()), 'application/json; charset=utf-8');
    return route({
      method: 'GET',
      path,
      operationId,
      summary,
      tags: ['discovery'],
      cors: 'public',
      responses: { 200: { description: summary, schema: Metadata, headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
      prepare: document.prepare,
      handler: async ({ headers }) => document.reply(headers['if-none-match']),
    });
  };
  const resources = protectedResources(routes(), publicUrl);
  const resourceDocument = (resource: string, scopes: readonly string[]) => ({
    resource,
    authorization_servers: [publicUrl],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'Portico',
    resource_documentation: `${publicUrl}/openapi.json`,
  });
  return [
    documentRoute('/.well-known/oauth-authorization-server', 'getAuthorizationServerMetadata', 'OAuth 2.0 authorization server metadata (RFC 8414)', () =>
      authorizationServerMetadata(routes(), publicUrl, features),
    ),
    documentRoute(PRM_PATH, 'getProtectedResourceMetadata', 'Protected resource metadata for the API as a whole (RFC 9728): its tokens are accepted on every protected route', () =>
      resourceDocument(publicUrl, ALL_SCOPES),
    ),
    ...resources.map((r) => {
      const path = r.resource.slice(publicUrl.length);
      const name = path
        .split('/')
        .filter(Boolean)
        .map((part) => part[0]!.toUpperCase() + part.slice(1))
        .join('');
      // RFC 9728 section 3.1: the well-known segment goes before the resource's path.
      return documentRoute(`${PRM_PATH}${path}`, `getProtectedResourceMetadata${name}`, `Protected resource metadata for ${path} (RFC 9728)`, () => resourceDocument(r.resource, [r.scope]));
    }),
  ];
}
