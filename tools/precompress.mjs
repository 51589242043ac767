// Run by `npm run build`, after the TypeScript is compiled: writes br and gzip copies of the /docs page's
// files (Swagger UI's 1.7 MB bundle among them) to dist/precompressed, so that they are served compressed
// without compressing at start or per request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { docsAssets } from '../dist/modules/discovery/docs-page.js';
import { PRECOMPRESSED_DIR } from '../dist/modules/discovery/static-asset.js';

const { styles, scripts } = docsAssets();
mkdirSync(PRECOMPRESSED_DIR, { recursive: true });
for (const file of [styles, ...scripts]) {
  const name = `${PRECOMPRESSED_DIR}${basename(file.path)}`;
  writeFileSync(`${name}.br`, brotliCompressSync(file.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: file.body.length } }));
  writeFileSync(`${name}.gz`, gzipSync(file.body, { level: 9 }));
}
