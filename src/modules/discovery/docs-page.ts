// The API reference page at GET /docs: Swagger UI, served by us from node_modules, rendering our /openapi.json.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as z from 'zod';
import { route, type RouteSpec } from '../common/route-spec.js';
import { asset, assetRoute, type Asset } from './static-asset.js';

/** swagger-ui-dist is pinned in package.json: its bundle makes no request of its own beyond the spec URL. */
const require = createRequire(import.meta.url);
const vendorFile = (name: string) => readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8');

/**
 * Our start-up code for the bundle, served as a file so that the page needs no inline script.
 * The spec URL comes from the page (`data-spec-url`), resolved against it; `?url=` in the address is ignored.
 * BaseLayout has no top bar and so no online-validator badge (which would call validator.swagger.io).
 */
const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: new URL(root.getAttribute('data-spec-url'), document.baseURI).href,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    displayOperationId: true,
    queryConfigEnabled: false,
    validatorUrl: null,
  });
})();
`;

/** The bundle's own page styles (index.css) after its main sheet, minus the source-map comment (no .map is served). */
const stylesheet = () => `${vendorFile('swagger-ui.css').replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')}\n${vendorFile('index.css')}`;

/**
 * The page's policy: scripts, styles and fetches only from us, images from us or inline (the sheet's
 * SVG icons are data: URLs), and nothing may frame it. No inline script or style is needed.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Relative references: `/docs` resolves `docs/assets/...` and `openapi.json` against the root, below any path prefix. */
function docsHtml(styles: Asset, scripts: readonly Asset[]): string {
  const relative = (a: Asset) => escapeAttribute(a.path.slice(1));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>Portico API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${relative(styles)}">
${scripts.map((script) => `<script src="${relative(script)}" defer></script>`).join('\n')}
</head>
<body>
<noscript><p>This page needs JavaScript. The API description itself is <a href="openapi.json">openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-spec-url="openapi.json"></div>
</body>
</html>
`;
}

/** The page's style sheet and scripts, read from swagger-ui-dist (also by the build, which compresses them). */
export function docsAssets(): { styles: Asset; scripts: Asset[] } {
  return {
    styles: asset('/docs/assets', 'swagger-ui', 'css', stylesheet()),
    scripts: [asset('/docs/assets', 'swagger-ui-bundle', 'js', vendorFile('swagger-ui-bundle.js')), asset('/docs/assets', 'docs-init', 'js', INIT_SCRIPT)],
  };
}

/** GET /docs and its assets. The vendor files are read once, here, at start. */
export function docsRoutes(): RouteSpec[] {
  const { styles, scripts } = docsAssets();
  const page = docsHtml(styles, scripts);
  const pageHeaders = {
    'cache-control': 'no-cache',
    'content-security-policy': DOCS_CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
  };

  return [
    route({
      method: 'GET',
      path: '/docs',
      operationId: 'getDocsPage',
      summary: 'The API reference page, rendered from /openapi.json',
      description: 'An HTML page (Swagger UI) that reads this OpenAPI document; every script and style it loads is served by this API.',
      tags: ['discovery'],
      responses: { 200: { description: 'The HTML page.', contentType: 'text/html', schema: z.string() } },
      handler: async () => ({ status: 200, body: page, contentType: 'text/html; charset=utf-8', headers: pageHeaders }),
    }),
    assetRoute(styles, 'A style sheet of the API reference page'),
    ...scripts.map((script) => assetRoute(script, 'A script of the API reference page')),
  ];
}
