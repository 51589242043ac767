// The authorization server's state: clients, consents, codes, grants and tokens, secrets only as hashes.
//
// Semantics every engine keeps (tested in test/contracts):
// - `consume*` methods are atomic and succeed once: the second caller gets undefined.
// - Revoking a grant revokes every token issued under it, at once.
// - Lookups never return expired or revoked rows unless the method says so.

/**
 * A client_id that names a Client ID Metadata Document is its https URL (D13); it has no registered row.
 * Registered client ids are base64url, which never holds ':' or '/', so the two never meet.
 */
export const METADATA_DOCUMENT_CLIENT_ID_PREFIX = 'https://';
export const isMetadataDocumentClientId = (clientId: string) => clientId.startsWith(METADATA_DOCUMENT_CLIENT_ID_PREFIX);

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface Client {
  clientId: string;
  /** SHA-256 (hex) of the secret; null for public clients. */
  secretHash: string | null;
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  scope: string;
  applicationType: string | null;
  createdAt: number;
  /** When a token was last issued to it; null until the first. */
  lastUsedAt: number | null;
}

/** A pending consent: what the visitor is asked to approve, bound to their browser. */
export interface Consent {
  idHash: string;
  /** SHA-256 of the browser-binding cookie value. */
  browserHash: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  resource: string;
  codeChallenge: string;
  state: string | null;
  expiresAt: number;
}

export interface AuthorizationCode {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
  expiresAt: number;
  /** The grant the code opens; tokens from its exchange belong to it. */
  grantId: string;
}

export interface Grant {
  grantId: string;
  clientId: string;
  scope: string;
  resource: string;
  createdAt: number;
}

export type TokenKind = 'access' | 'refresh';
/** `superseded`: a refresh token whose successor has been used; presenting it again is replay. */
export type TokenState = 'active' | 'superseded' | 'revoked';

export interface Token {
  tokenHash: string;
  kind: TokenKind;
  grantId: string;
  clientId: string;
  scope: string;
  resource: string;
  expiresAt: number;
  state: TokenState;
  /** For refresh tokens: the refresh token this one replaced. */
  previousHash: string | null;
  usedAt: number | null;
}

export interface OAuthStore {
  createClient(client: Client): Promise<void>;
  /**
   * Clients never change once registered (but for their last use), so a node may hold them: for up to
   * 30 seconds it may return one another node has deleted; `saveTokens` is what refuses it.
   */
  getClient(clientId: string): Promise<Client | undefined>;
  listClients(limit: number): Promise<Client[]>;
  /** Deletes the client with its consents, codes, grants and tokens; false when unknown. */
  deleteClient(clientId: string): Promise<boolean>;
  touchClient(clientId: string, at: number): Promise<void>;

  createConsent(consent: Consent): Promise<void>;
  /** Takes the consent once; undefined if unknown, already taken or expired. */
  consumeConsent(idHash: string, now: number): Promise<Consent | undefined>;

  /** Stores the code and opens its grant (no tokens yet). */
  createCode(code: AuthorizationCode, grant: Grant): Promise<void>;
  /**
   * Takes the code once. A second presentation returns `{ replayed: grantId }` so the caller can
   * revoke what the first exchange issued (RFC 6749 section 4.1.2).
   */
  consumeCode(codeHash: string, now: number): Promise<AuthorizationCode | { replayed: string } | undefined>;

  createGrant(grant: Grant): Promise<void>;
  revokeGrant(grantId: string, now: number): Promise<void>;
  isGrantRevoked(grantId: string): Promise<boolean>;

  /**
   * Stores tokens in one transaction, provided their client is still registered (or is a metadata
   * document): false, with nothing stored, when it was deleted, even by another node whose deletion
   * this node's `getClient` has not seen yet. After `deleteClient` returns, no token of it is saved.
   */
  saveTokens(tokens: Token[]): Promise<boolean>;
  getToken(tokenHash: string): Promise<Token | undefined>;
  /**
   * Rotation bookkeeping when `refresh` is used (D4): its predecessor becomes superseded; other
   * never-used successors of it are superseded too; `refresh` is marked used. Atomic with `issue`.
   * `refresh` was read before; if since then its grant was revoked, or the token is no longer active,
   * nothing is written and the answer says why ('revoked' or 'superseded'), so that no token is ever
   * issued under a revoked grant, whichever of a revocation and a rotation racing it runs first.
   */
  rotateRefresh(refresh: Token, now: number, issue: Token[]): Promise<'rotated' | 'revoked' | 'superseded'>;
  revokeToken(tokenHash: string): Promise<void>;

  /** Deletes expired consents, codes and tokens, and clients per D6; returns how many rows went. */
  purgeExpired(now: number, policy: { neverUsedClientMs: number; unusedClientMs: number }): Promise<number>;
}
