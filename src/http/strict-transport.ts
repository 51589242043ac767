// HTTP Strict Transport Security (RFC 6797): a browser told once keeps to https for this host.
import type { onRequestHookHandler } from 'fastify';

/** A year, and this host alone: the site's other hosts are the site's to declare. */
export const HSTS = 'max-age=31536000';

/**
 * Sends HSTS on every answer to a request that came over https. RFC 6797 section 7.2: never over plain
 * http. Behind a TLS-terminating proxy the node learns the scheme from a trusted proxy's
 * X-Forwarded-Proto (TRUST_PROXY), so the header's absence behind https shows a proxy that does not say
 * the scheme, or nodes that do not believe it (`portico doctor` reads it).
 */
export const strictTransportSecurity: onRequestHookHandler = (request, reply, done) => {
  if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
  done();
};
