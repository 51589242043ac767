// The embeddable contact form's files: the element's script, under a stable name and under a name
// carrying its digest (cached for a year, for Subresource Integrity), and the settings it reads.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ifNoneMatchHits, strongEtag } from '../discovery/cached-document.js';
import { route, type Reply, type RouteSpec } from '../common/route-spec.js';
import { embedPageRoutes, type EmbedScript } from './embed-page.js';
import { contactFormElementScript } from './element.js';

export interface EmbedSettings {
  publicUrl: string;
  /** Turnstile's public site key when Portico checks browsers with it; the element then renders the widget. */
  turnstileSiteKey: string | undefined;
  /** PRIVACY_POLICY_URL: the element links its consent checkbox to it. */
  privacyPolicyUrl?: string | undefined;
}

// Any site may load the script and read its settings (the element posts only where CONTACT_ALLOWED_ORIGINS
// lets it): CORS for every origin, and Cross-Origin-Resource-Policy so that sites isolated with COEP can too.
const SHARED = { 'cross-origin-resource-policy': 'cross-origin', 'x-content-type-options': 'nosniff' };
const CONTENT_TYPE = 'text/javascript; charset=utf-8';

/** The element's script with its digest-named path and its Subresource Integrity value (sha384). */
export function embedScript(): EmbedScript & { body: Buffer } {
  const body = Buffer.from(contactFormElementScript(), 'utf8');
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { body, path: `/embed/contact-form.${digest}.js`, integrity: `sha384-${createHash('sha384').update(body).digest('base64')}` };
}

/**
 * The element's script under its stable name (cached an hour) and its digest name (immutable), and
 * /embed/config.json, all readable from any origin; then the /embed page's routes.
 */
export function embedRoutes(settings: EmbedSettings): RouteSpec[] {
  const script = embedScript();
  const etag = strongEtag(script.body);
  const serve =
    (cacheControl: string) =>
    async ({ headers }: { headers: Readonly<Record<string, string | string[] | undefined>> }): Promise<Reply> => {
      const replyHeaders = { ...SHARED, etag, 'cache-control': cacheControl };
      if (ifNoneMatchHits(headers['if-none-match'], etag)) return { status: 304, headers: replyHeaders };
      return { status: 200, body: script.body, contentType: CONTENT_TYPE, headers: replyHeaders };
    };
  const scriptResponses = { 200: { description: 'The script.', contentType: 'text/javascript', schema: z.string(), headers: ['ETag'] }, 304: { description: 'Not modified (If-None-Match).' } };
  const config = JSON.stringify({ turnstileSiteKey: settings.turnstileSiteKey ?? null, privacyPolicyUrl: settings.privacyPolicyUrl ?? null });
  return [
    route({
      method: 'GET',
      path: '/embed/contact-form.js',
      operationId: 'getEmbedScript',
      summary: 'The <portico-contact-form> element for web pages',
      description: 'A custom element that renders the contact form and posts to /api/contact. Cached an hour; the digest-named copy linked from /embed is cached a year, for Subresource Integrity.',
      tags: ['embed'],
      cors: 'public',
      responses: scriptResponses,
      handler: serve('public, max-age=3600'),
    }),
    route({
      method: 'GET',
      path: script.path,
      operationId: 'getEmbedScriptVersioned',
      summary: 'The <portico-contact-form> element, under a name that changes with its content',
      tags: ['embed'],
      hidden: true,
      cors: 'public',
      responses: scriptResponses,
      handler: serve('public, max-age=31536000, immutable'),
    }),
    route({
      method: 'GET',
      path: '/embed/config.json',
      operationId: 'getEmbedConfig',
      summary: 'What the element needs to know of this server: the Turnstile site key and the privacy policy, if any',
      tags: ['embed'],
      cors: 'public',
      responses: { 200: { description: 'The settings.', schema: z.object({ turnstileSiteKey: z.string().nullable(), privacyPolicyUrl: z.url().nullable() }) } },
      handler: async () => ({ status: 200, body: config, contentType: 'application/json; charset=utf-8', headers: { ...SHARED, 'cache-control': 'public, max-age=300' } }),
    }),
    ...embedPageRoutes({ publicUrl: settings.publicUrl, turnstile: settings.turnstileSiteKey !== undefined, script }),
  ];
}
