// Tells the operator, once for each, about requests that arrive by a loopback alias of PUBLIC_URL.
import type { onRequestHookHandler } from 'fastify';
import { aliasAdvice, type PublicOrigin } from '../modules/common/public-origin.js';

/**
 * One warning line for each alias a request arrives by, the first time (at most two: the aliases are
 * the loopback names). Installed only when there are aliases: a non-loopback PUBLIC_URL pays nothing.
 */
export function warnOnAliases(origin: PublicOrigin, log: { warn(obj: object, msg: string): void }): onRequestHookHandler | undefined {
  if (origin.hosts.size === 1) return undefined;
  const warned = new Set<string>();
  return (request, _reply, done) => {
    // Nearly every request names the server as PUBLIC_URL does: nothing to look up.
    if (request.headers.host === origin.host) return done();
    const host = request.headers.host?.toLowerCase();
    if (host !== undefined && !warned.has(host) && origin.isAlias(host)) {
      warned.add(host);
      log.warn({ host, publicUrl: origin.url }, `a request reached Portico as ${host}: ${aliasAdvice(origin, host)}`);
    }
    done();
  };
}
