// Resolving a Bearer access token to what it may do: the seam the OAuth module fills.

export interface Principal {
  clientId: string;
  scopes: readonly string[];
  /** The RFC 8707 resource the token was issued for. */
  resource: string;
}

export interface TokenVerifier {
  /** The token's principal, or undefined when it is unknown, expired or revoked. */
  verify(token: string): Promise<Principal | undefined>;
}
