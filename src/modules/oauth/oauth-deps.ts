// What the authorization server needs: its store, clock, randomness, issuer and protected resources.
import type { Clock } from '../../ports/clock.js';
import type { Metrics } from '../../ports/metrics.js';
import type { OAuthStore } from '../../ports/oauth-store.js';
import type { Random } from '../../ports/random.js';
import type { MetadataDocuments } from './metadata-documents.js';

export interface ProtectedResource {
  /** The RFC 8707 resource identifier: the route's absolute URL. */
  resource: string;
  /** The scope a token needs there. */
  scope: string;
}

export interface OAuthDeps {
  store: OAuthStore;
  clock: Clock;
  random: Random;
  /** The issuer identifier (RFC 8414 section 2): PUBLIC_URL. */
  issuer: string;
  /** Derived from the routes that accept Bearer tokens. */
  resources: () => readonly ProtectedResource[];
  metrics: Metrics;
  /** Clients identified by metadata documents (D13); undefined when CIMD=off. */
  metadataDocuments?: MetadataDocuments;
}

// D4 lifetimes.
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const CODE_TTL_SECONDS = 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86400;
export const CONSENT_TTL_SECONDS = 600;
