// The RFC 8414 and RFC 9728 documents hold only members those RFCs (and the IANA registries they
// create) define, each with the type and values the registry allows: a typo or a made-up member
// would be ignored by every client, silently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startApp, type TestApp } from '../support/app.js';

const PUBLIC_URL = 'https://api.portico.example';

// RFC 8414 section 2: a URL with the https scheme, no query and no fragment (issuer: section 2, first item).
const httpsUrl = z.url({ protocol: /^https$/ }).refine((url) => !url.includes('?') && !url.includes('#'), 'no query or fragment');
const words = (values: readonly [string, ...string[]]) => z.array(z.enum(values)).min(1);
// RFC 6749 section 3.3: scope tokens are printable ASCII without space, quote or backslash.
const scopeTokens = z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/)).min(1);

// IANA "OAuth Token Endpoint Authentication Methods" (RFC 7591 section 4.2, RFC 8705 section 2.1).
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'] as const;
// RFC 7591 section 2 lists the grant types a client may register (and so a server may support).
const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'password',
  'client_credentials',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
] as const;

// Every member of RFC 8414 section 2, plus those later RFCs added to the IANA "OAuth Authorization
// Server Metadata" registry that this server could ever emit (RFC 9207 section 3). `.strict()`
// makes any other member fail.
const AuthorizationServerMetadata = z
  .object({
    issuer: httpsUrl,
    authorization_endpoint: httpsUrl.optional(),
    token_endpoint: httpsUrl.optional(),
    jwks_uri: httpsUrl.optional(),
    registration_endpoint: httpsUrl.optional(),
    scopes_supported: scopeTokens.optional(),
    response_types_supported: words(['code', 'token', 'id_token', 'code id_token', 'code token', 'id_token token', 'code id_token token', 'none']),
    response_modes_supported: words(['query', 'fragment', 'form_post']).optional(),
    grant_types_supported: words(GRANT_TYPES).optional(),
    token_endpoint_auth_methods_supported: words(AUTH_METHODS).optional(),
    token_endpoint_auth_signing_alg_values_supported: z.array(z.string()).optional(),
    service_documentation: httpsUrl.optional(),
    // BCP 47 language tags (RFC 5646).
    ui_locales_supported: z
      .array(z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/))
      .min(1)
      .optional(),
    op_policy_uri: httpsUrl.optional(),
    op_tos_uri: httpsUrl.optional(),
    revocation_endpoint: httpsUrl.optional(),
    revocation_endpoint_auth_methods_supported: words(AUTH_METHODS).optional(),
    revocation_endpoint_auth_signing_alg_values_supported: z.array(z.string()).optional(),
    introspection_endpoint: httpsUrl.optional(),
    introspection_endpoint_auth_methods_supported: words(AUTH_METHODS).optional(),
    introspection_endpoint_auth_signing_alg_values_supported: z.array(z.string()).optional(),
    code_challenge_methods_supported: words(['plain', 'S256']).optional(),
    signed_metadata: z.string().optional(),
    authorization_response_iss_parameter_supported: z.boolean().optional(),
    // draft-ietf-oauth-client-id-metadata-document section 5 (D13).
    client_id_metadata_document_supported: z.boolean().optional(),
  })
  .strict();

// Every member of RFC 9728 section 2 (the IANA "OAuth Protected Resource Metadata" registry).
const ProtectedResourceMetadata = z
  .object({
    resource: httpsUrl,
    authorization_servers: z.array(httpsUrl).min(1).optional(),
    jwks_uri: httpsUrl.optional(),
    scopes_supported: scopeTokens.optional(),
    bearer_methods_supported: words(['header', 'body', 'query']).optional(),
    resource_signing_alg_values_supported: z.array(z.string()).optional(),
    resource_name: z.string().min(1).optional(),
    resource_documentation: httpsUrl.optional(),
    resource_policy_uri: httpsUrl.optional(),
    resource_tos_uri: httpsUrl.optional(),
    tls_client_certificate_bound_access_tokens: z.boolean().optional(),
    authorization_details_types_supported: z.array(z.string()).optional(),
    dpop_signing_alg_values_supported: z.array(z.string()).optional(),
    dpop_bound_access_tokens_required: z.boolean().optional(),
    signed_metadata: z.string().optional(),
  })
  .strict();

describe('the discovery documents, member by member', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL });
  });
  afterAll(() => api.close());

  const read = async (path: string) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    return response.json();
  };

  it('the authorization server metadata uses only registered RFC 8414 members, each well-typed', async () => {
    const result = AuthorizationServerMetadata.safeParse(await read('/.well-known/oauth-authorization-server'));
    expect(result.error?.issues ?? []).toEqual([]);
    // RFC 8414 section 3.3: the issuer is the URL the document was derived from.
    expect(result.data!.issuer).toBe(PUBLIC_URL);
  });

  it('the authorization server never advertises a grant or response type it would refuse', async () => {
    const metadata = AuthorizationServerMetadata.parse(await read('/.well-known/oauth-authorization-server'));
    // RFC 9700 section 2.1.2: no implicit grant; section 2.4: no password grant.
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.grant_types_supported).not.toContain('password');
    expect(metadata.response_types_supported).toEqual(['code']);
  });

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/contact', '/.well-known/oauth-protected-resource/mcp'])(
    '%s uses only registered RFC 9728 members, each well-typed',
    async (path) => {
      const result = ProtectedResourceMetadata.safeParse(await read(path));
      expect(result.error?.issues ?? []).toEqual([]);
      // RFC 9728 section 3.3: `resource` is the URL whose well-known path was fetched.
      expect(result.data!.resource).toBe(`${PUBLIC_URL}${path.slice('/.well-known/oauth-protected-resource'.length)}`);
    },
  );
});
