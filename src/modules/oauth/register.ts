// Dynamic client registration (RFC 7591): validate metadata, apply defaults, issue the credentials once.
import * as z from 'zod';
import { AppError } from '../../errors.js';
import type { Client, TokenEndpointAuthMethod } from '../../ports/oauth-store.js';
import { ClientName } from './client-name.js';
import type { OAuthDeps } from './oauth-deps.js';
import { redirectUriProblem } from './redirect-uris.js';
import { ALL_SCOPES, formatScope, parseScope } from './scopes.js';
import { newClientId, newSecret, sha256 } from './secrets.js';

export const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

// RFC 7591 section 2: unknown metadata is ignored, so the object is loose.
export const ClientRegistrationRequest = z
  .looseObject({
    client_name: ClientName.optional(),
    redirect_uris: z.array(z.string().max(2000), { error: 'redirect_uris must be an array of URIs' }).max(20).optional(),
    grant_types: z
      .array(z.enum(GRANT_TYPES, { error: `grant_types may hold ${GRANT_TYPES.join(', ')}` }))
      .min(1)
      .optional(),
    token_endpoint_auth_method: z.enum(AUTH_METHODS, { error: `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}` }).optional(),
    scope: z.string({ error: 'scope must be a space-delimited string' }).max(500).optional(),
    application_type: z.enum(['web', 'native']).optional(),
    response_types: z.array(z.string()).optional(),
  })
  .meta({
    id: 'ClientRegistrationRequest',
    examples: [{ client_name: 'Acme CRM sync', grant_types: ['client_credentials'], scope: 'contact:write' }],
  });
export type ClientRegistrationRequest = z.output<typeof ClientRegistrationRequest>;

export const ClientRegistrationResponse = z
  .object({
    client_id: z.string(),
    client_secret: z.string().optional(),
    client_id_issued_at: z.int().optional(),
    client_secret_expires_at: z.int().optional(),
    client_name: z.string().optional(),
    redirect_uris: z.array(z.string()).optional(),
    grant_types: z.array(z.string()).optional(),
    token_endpoint_auth_method: z.string().optional(),
    scope: z.string().optional(),
  })
  .meta({
    id: 'ClientRegistrationResponse',
    examples: [
      {
        client_id: 's6BhdRkqt3',
        client_secret: 'cf136dc3c1fc93f31185e5885805d',
        client_id_issued_at: 1795320000,
        client_secret_expires_at: 0,
        client_name: 'Acme CRM sync',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'contact:write',
      },
    ],
  });

const invalidMetadata = (description: string) => new AppError('invalid_client_metadata', description);

/**
 * Stores a new client with the RFC 7591 section 2 defaults and returns its credentials, the secret in clear
 * this once. Inconsistent metadata throws invalid_client_metadata or invalid_redirect_uri.
 */
export async function registerClient(deps: OAuthDeps, request: ClientRegistrationRequest): Promise<z.output<typeof ClientRegistrationResponse>> {
  // RFC 7591 section 2 defaults.
  const grantTypes = [...new Set(request.grant_types ?? ['authorization_code'])];
  const method: TokenEndpointAuthMethod = request.token_endpoint_auth_method ?? 'client_secret_basic';
  const redirectUris = request.redirect_uris ?? [];
  // D5: no scope means all three; so does a scope of only the OpenID words hosts add by habit (scopes.ts).
  const parsed = request.scope === undefined ? ALL_SCOPES : parseScope(request.scope);
  if (!parsed) throw invalidMetadata(`scope may hold ${ALL_SCOPES.join(', ')}`);
  const scope = parsed.length ? parsed : ALL_SCOPES;

  if (grantTypes.includes('authorization_code') && !redirectUris.length) throw new AppError('invalid_redirect_uri', 'redirect_uris is required for the authorization_code grant');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new AppError('invalid_redirect_uri', problem);
  }
  if (method === 'none' && grantTypes.includes('client_credentials')) throw invalidMetadata('a public client (token_endpoint_auth_method none) cannot use client_credentials');
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code')) throw invalidMetadata('refresh_token requires the authorization_code grant');
  if (request.response_types && request.response_types.some((type) => type !== 'code')) throw invalidMetadata('response_types may only hold code');

  const now = deps.clock.now();
  const secret = method === 'none' ? undefined : newSecret(deps.random);
  const client: Client = {
    clientId: newClientId(deps.random),
    secretHash: secret === undefined ? null : sha256(secret),
    clientName: request.client_name ?? null,
    redirectUris,
    grantTypes,
    tokenEndpointAuthMethod: method,
    scope: formatScope(scope),
    applicationType: request.application_type ?? null,
    createdAt: now,
    lastUsedAt: null,
  };
  await deps.store.createClient(client);
  deps.metrics.clientRegistered();
  return {
    client_id: client.clientId,
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_id_issued_at: Math.floor(now / 1000),
    ...(client.clientName === null ? {} : { client_name: client.clientName }),
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    token_endpoint_auth_method: method,
    scope: client.scope,
    ...(client.applicationType ? { application_type: client.applicationType } : {}),
  };
}
