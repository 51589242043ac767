// A discovery document serialized once, with a strong ETag, answering If-None-Match with 304 (RFC 9110 13.1.2).
import { createHash } from 'node:crypto';
import type { Reply } from '../../route-spec.js';

const CACHE_CONTROL = 'public, max-age=3600';

/** A strong validator of exact bytes (RFC 9110 section 8.8.3). */
export const strongEtag = (body: string | Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

export interface CachedDocument {
  reply(ifNoneMatch: string | string[] | undefined): Reply;
}

/** `build` runs on first use only: the routes and configuration do not change while the process runs. */
export function cachedDocument(build: () => string, contentType: string): CachedDocument {
  let cached: { body: string; etag: string } | undefined;
  return {
    reply(ifNoneMatch) {
      if (!cached) {
        const body = build();
        cached = { body, etag: strongEtag(body) };
      }
      const headers = { etag: cached.etag, 'cache-control': CACHE_CONTROL };
      if (ifNoneMatchHits(ifNoneMatch, cached.etag)) return { status: 304, headers };
      return { status: 200, body: cached.body, contentType, headers };
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
