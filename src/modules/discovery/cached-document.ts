// A discovery document serialized once, with a strong ETag, answering If-None-Match with 304 (RFC 9110 13.1.2).
import { createHash } from 'node:crypto';
import type { Reply } from '../common/route-spec.js';

const CACHE_CONTROL = 'public, max-age=3600';

/** A strong validator of exact bytes (RFC 9110 section 8.8.3). */
export const strongEtag = (body: string | Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

export interface CachedDocument {
  /** Serializes the document; called once at start, when every route is known (RouteSpec.prepare). */
  prepare(): void;
  reply(ifNoneMatch: string | string[] | undefined): Reply;
}

/** The routes and configuration do not change while the process runs: one serialization, one ETag. */
export function cachedDocument(build: () => string, contentType: string): CachedDocument {
  let cached: { ok: Reply; notModified: Reply; etag: string } | undefined;
  const prepare = () => {
    if (cached) return cached;
    // A string, not bytes: node:http then writes the head and the body in one write() (a Buffer body
    // goes out as a second chunk through writev, slower for these small documents).
    const body = build();
    const etag = strongEtag(body);
    const headers = { etag, 'cache-control': CACHE_CONTROL };
    cached = { etag, ok: { status: 200, body, contentType, headers }, notModified: { status: 304, headers } };
    return cached;
  };
  return {
    prepare,
    reply(ifNoneMatch) {
      // Built here only when a caller skipped prepare (a route table served outside buildApp).
      const document = cached ?? prepare();
      return ifNoneMatchHits(ifNoneMatch, document.etag) ? document.notModified : document.ok;
    },
  };
}

/** If-None-Match (RFC 9110 section 13.1.2) names this representation: any listed tag, or `*`. */
export function ifNoneMatchHits(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').map((tag) => tag.trim());
  // Weak comparison, as If-None-Match uses (RFC 9110 section 8.8.3.2).
  return tags.some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}
