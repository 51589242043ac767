// A script or style sheet of one of Portico's own pages (/docs, /embed), served under a name carrying a
// digest of its bytes, so that it may be cached for good: a new version is a new name.
import { createHash } from 'node:crypto';
import { route, type Reply, type RouteSpec } from '../../route-spec.js';
import { ifNoneMatchHits, strongEtag } from './cached-document.js';

export interface Asset {
  /** Path under `folder`, with a digest of the bytes in the name so `immutable` stays true across upgrades. */
  path: string;
  body: Buffer;
  contentType: string;
  etag: string;
}

const ASSET_CACHE_CONTROL = 'public, max-age=86400, immutable';

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

/** The route that serves `file`, with its ETag and a long cache; kept out of the OpenAPI document. */
export function assetRoute(file: Asset, summary: string): RouteSpec {
  const headers = { etag: file.etag, 'cache-control': ASSET_CACHE_CONTROL, 'x-content-type-options': 'nosniff' };
  return route({
    method: 'GET',
    path: file.path,
    operationId: `getAsset${file.path.replace(/\W+/g, '_')}`,
    summary,
    tags: ['discovery'],
    hidden: true,
    responses: { 200: { description: 'The file.', headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } },
    async handler({ headers: request }): Promise<Reply> {
      if (ifNoneMatchHits(request['if-none-match'], file.etag)) return { status: 304, headers };
      return { status: 200, body: file.body, contentType: file.contentType, headers };
    },
  });
}
