// An MCP SDK 2.x OAuthClientProvider that keeps what it is given in memory and approves the consent page
// as a visitor would; what it saved and where the visitor landed, for the test to read.
import type { OAuthClientMetadata, OAuthClientProvider } from '@modelcontextprotocol/client';
import { approveConsent } from './consent.js';

export interface MemoryProvider {
  provider: OAuthClientProvider;
  saved: { client?: { client_id: string }; tokens?: { access_token: string; refresh_token?: string; token_type: string; scope?: string }; verifier?: string };
  /** The callback URL the visitor landed on after approving. */
  landedOn(): URL;
  /** The authorization request the SDK sent the visitor to. */
  authorizationUrl(): URL;
}

export function memoryProvider(clientMetadata: OAuthClientMetadata, options: { clientMetadataUrl?: string } = {}): MemoryProvider {
  const saved: MemoryProvider['saved'] = {};
  let landed: URL | undefined;
  let authorization: URL | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl: clientMetadata.redirect_uris[0]!,
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    clientMetadata,
    clientInformation: () => saved.client as never,
    saveClientInformation: (info) => void (saved.client = info),
    tokens: () => saved.tokens as never,
    saveTokens: (tokens) => void (saved.tokens = tokens),
    redirectToAuthorization: async (url) => {
      authorization = url;
      landed = await approveConsent(url);
    },
    saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
    codeVerifier: () => saved.verifier!,
  };
  return {
    provider,
    saved,
    landedOn: () => {
      if (!landed) throw new Error('the provider was never sent to the consent page');
      return landed;
    },
    authorizationUrl: () => {
      if (!authorization) throw new Error('the provider was never sent to the authorization endpoint');
      return authorization;
    },
  };
}
