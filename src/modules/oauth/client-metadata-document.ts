// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, D13): the client a fetched
// document describes (which client_ids name one is the store's rule, ports/oauth-store.ts).
import { AppError } from '../../errors.js';
import type { Client } from '../../ports/oauth-store.js';
import { ClientName } from './client-name.js';
import { redirectUriProblem } from './redirect-uris.js';
import { narrowScope } from './scopes.js';

const invalidClient = (description: string) => new AppError('invalid_client', description);

/** The client_id as a URL, if it is a valid client identifier URL (section 3); else why not. */
export function parseClientIdUrl(clientId: string): URL {
  const refuse = (why: string) => invalidClient(`client_id ${clientId} is not a valid client ID metadata document URL: ${why} (draft-ietf-oauth-client-id-metadata-document section 3)`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse('it is not a URL');
  }
  if (url.protocol !== 'https:') throw refuse('it must use https');
  // The parser would quietly drop or rewrite these; the identifier is compared as sent.
  if (/[\s\\\u0000-\u001f\u007f]/.test(clientId)) throw refuse('it must not contain spaces, control characters or backslashes');
  if (clientId.includes('#')) throw refuse('it must not contain a fragment');
  if (url.username || url.password || /^https:\/\/[^/?#]*@/.test(clientId)) throw refuse('it must not contain a user name or password');
  // The URL parser removes dot segments; the identifier is compared as a string, so they are refused as sent.
  const rawPath = clientId
    .slice('https://'.length)
    .replace(/^[^/?]*/, '')
    .split('?', 1)[0]!;
  if (!rawPath || rawPath === '/') throw refuse('it must contain a path');
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e(%2e)?$/i.test(segment) || /^\.%2e$|^%2e\.$/i.test(segment))) {
    throw refuse('it must not contain . or .. path segments');
  }
  return url;
}

// Methods that need a secret shared with the authorization server (section 4.1): never in a document.
const SHARED_SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
const GRANTS_OF_PUBLIC_CLIENTS = ['authorization_code', 'refresh_token'];

/** The public client a fetched document describes; AppError invalid_client when it describes none. */
export function clientFromDocument(clientId: string, body: unknown, now: number): Client {
  const refuse = (why: string) => invalidClient(`the client ID metadata document ${clientId} is not usable: ${why}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('it is not a JSON object');
  const doc = body as Record<string, unknown>;
  // Section 4.1: a simple string comparison, no normalization.
  if (doc.client_id !== clientId) throw refuse(`its client_id (${doc.client_id === undefined ? 'missing' : JSON.stringify(doc.client_id)}) is not the URL it was fetched from`);
  const secretField = Object.keys(doc).find((key) => key.startsWith('client_secret'));
  if (secretField) throw refuse(`it contains ${secretField}: a document is public and must not carry a secret`);

  if (typeof doc.client_name !== 'string' || !doc.client_name.trim()) throw refuse('client_name is required');
  // The rules of a registered name (RFC 7591 registration), which the consent page shows alike.
  const name = ClientName.safeParse(doc.client_name);
  if (!name.success) throw refuse(name.error.issues[0]!.message);
  const redirectUris = doc.redirect_uris;
  if (!Array.isArray(redirectUris) || !redirectUris.length || redirectUris.length > 20 || !redirectUris.every((uri) => typeof uri === 'string')) {
    throw refuse('redirect_uris is required: an array of 1 to 20 URIs');
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw refuse(problem);
  }

  // A document names its preferred method (RFC 7591 section 2) and may list others it supports (ChatGPT's
  // prefers private_key_jwt and lists none too). Any shared-secret method is an error; otherwise Portico
  // serves it as a public client, which needs `none` among them (or no method named at all).
  const methods = [doc.token_endpoint_auth_method, doc.token_endpoint_auth_methods_supported].flat().filter((m) => m !== undefined);
  const shared = methods.find((m): m is string => typeof m === 'string' && SHARED_SECRET_METHODS.has(m));
  if (shared) throw refuse(`token_endpoint_auth_method ${shared} needs a shared secret, which a document cannot have`);
  if (methods.length && !methods.includes('none')) {
    throw refuse(
      `token_endpoint_auth_method ${methods.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(', ')} is not supported here: this server authenticates documented clients as public clients (none)`,
    );
  }

  const declared = doc.grant_types === undefined ? ['authorization_code'] : doc.grant_types;
  if (!Array.isArray(declared)) throw refuse('grant_types must be an array');
  const grantTypes = GRANTS_OF_PUBLIC_CLIENTS.filter((grant) => declared.includes(grant));
  if (!grantTypes.includes('authorization_code')) throw refuse('grant_types must include authorization_code (a public client has no other way to a token here)');
  if (Array.isArray(doc.response_types) && !doc.response_types.includes('code')) throw refuse('response_types must include code');

  return {
    clientId,
    secretHash: null,
    clientName: doc.client_name,
    redirectUris: redirectUris,
    grantTypes,
    tokenEndpointAuthMethod: 'none',
    scope: narrowScope(typeof doc.scope === 'string' ? doc.scope : undefined).join(' '),
    applicationType: doc.application_type === 'native' || doc.application_type === 'web' ? doc.application_type : null,
    createdAt: now,
    lastUsedAt: null,
  };
}
