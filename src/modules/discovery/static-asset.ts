// A script or style sheet of one of Portico's own pages (/docs, /embed), served under a name carrying a
// digest of its bytes, so that it may be cached for good: a new version is a new name.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { route, type Reply, type RouteSpec } from '../common/route-spec.js';
import { ifNoneMatchHits, strongEtag } from './cached-document.js';

export interface Asset {
  /** Path under `folder`, with a digest of the bytes in the name so `immutable` stays true across upgrades. */
  path: string;
  body: Buffer;
  contentType: string;
  etag: string;
}

/** Where `npm run build` leaves the compressed copies (dist/precompressed), named as the assets are. */
export const PRECOMPRESSED_DIR = fileURLToPath(new URL('../../precompressed/', import.meta.url));
export const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;

/** The compressed copies of `file` the build made, if any: their names carry the digest, so they are of these bytes. */
function precompressed(file: Asset): { encoding: string; body: Buffer }[] {
  return ENCODINGS.flatMap(([encoding, suffix]) => {
    const path = `${PRECOMPRESSED_DIR}${basename(file.path)}${suffix}`;
    return existsSync(path) ? [{ encoding, body: readFileSync(path) }] : [];
  });
}

/** The first of the copies whose coding the client accepts (RFC 9110 section 12.5.3; q=0 refuses one). */
function negotiate(copies: { encoding: string; body: Buffer }[], acceptEncoding: string | string[] | undefined) {
  const accepted = new Map(
    String(acceptEncoding ?? '')
      .split(',')
      .map((part) => {
        const [name, ...params] = part.trim().toLowerCase().split(';');
        const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
        return [name!, q === undefined ? 1 : Number(q)] as const;
      }),
  );
  return copies.find((copy) => (accepted.get(copy.encoding) ?? accepted.get('*') ?? 0) > 0);
}

const ASSET_CACHE_CONTROL = 'public, max-age=86400, immutable';

/**
 * A script or style sheet named `<folder>/<stem>.<digest>.<extension>`, so that it may be cached as
 * immutable; assetRoute serves it.
 */
export function asset(folder: string, stem: string, extension: 'js' | 'css', text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  const digest = createHash('sha256').update(body).digest();
  return {
    path: `${folder}/${stem}.${digest.toString('hex').slice(0, 16)}.${extension}`,
    body,
    contentType: extension === 'js' ? 'application/javascript; charset=utf-8' : 'text/css; charset=utf-8',
    etag: strongEtag(body),
  };
}

/**
 * The route that serves `file`, with its ETag and a long cache, compressed (br, else gzip) when the build
 * made copies and the client accepts one; kept out of the OpenAPI document.
 */
export function assetRoute(file: Asset, summary: string): RouteSpec {
  const copies = precompressed(file);
  const base = { 'cache-control': ASSET_CACHE_CONTROL, 'x-content-type-options': 'nosniff', ...(copies.length ? { vary: 'Accept-Encoding' } : {}) };
  // Each representation has its own strong validator (RFC 9110 section 8.8.3).
  const tagged = (encoding: string) => `${file.etag.slice(0, -1)}-${encoding}"`;
  return route({
    method: 'GET',
    path: file.path,
    operationId: `getAsset${file.path.replace(/\W+/g, '_')}`,
    summary,
    tags: ['discovery'],
    hidden: true,
    responses: { 200: { description: 'The file.', headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
    async handler({ headers: request }): Promise<Reply> {
      const copy = negotiate(copies, request['accept-encoding']);
      const etag = copy ? tagged(copy.encoding) : file.etag;
      const headers = { ...base, etag, ...(copy ? { 'content-encoding': copy.encoding } : {}) };
      if (ifNoneMatchHits(request['if-none-match'], etag)) return { status: 304, headers };
      return { status: 200, body: copy ? copy.body : file.body, contentType: file.contentType, headers };
    },
  });
}
