// Resolves a presented access token to its principal: the TokenVerifier the protected routes use.
import type { OAuthStore } from '../../ports/oauth-store.js';
import type { Clock } from '../../ports/clock.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { tokenKey } from './secrets.js';

/** A TokenVerifier over the store: undefined for a token unknown, not an access token, revoked or expired. */
export function storedTokenVerifier(store: OAuthStore, clock: Clock): TokenVerifier {
  return {
    async verify(token) {
      const found = await store.getToken(tokenKey(token));
      if (!found || found.kind !== 'access' || found.state !== 'active' || found.expiresAt <= clock.now()) return undefined;
      return { clientId: found.clientId, scopes: found.scope.split(' '), resource: found.resource };
    },
  };
}
