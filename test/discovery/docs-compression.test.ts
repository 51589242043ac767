// The /docs page's files leave compressed (br, else gzip) when the client accepts it: copies made by the
// build, each with its own validator, never compressed per request.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';

describe('the /docs files, compressed', () => {
  let server: ServeProcess;
  let bundle: string;
  let plain: Buffer;
  beforeAll(async () => {
    server = await startServe({ DATABASE_URL: 'sqlite::memory:', RATE_LIMITS: 'off' });
    const page = await (await fetch(`${server.url}/docs`)).text();
    bundle = `${server.url}/${/src="(docs\/assets\/swagger-ui-bundle\.[0-9a-f]+\.js)"/.exec(page)![1]}`;
    plain = Buffer.from(await (await fetch(bundle, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
  }, 30_000);
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  /** node:http, not fetch: fetch decodes the body itself and hides Content-Encoding's effect. */
  const raw = async (acceptEncoding: string) => {
    const { request } = await import('node:http');
    return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      request(bundle, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
  };

  it('sends Swagger UI’s bundle as brotli to a browser, a quarter of its size or less', async () => {
    const { headers, body } = await raw('gzip, deflate, br, zstd');
    expect(headers['content-encoding']).toBe('br');
    expect(headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(body).equals(plain)).toBe(true);
    expect(body.length).toBeLessThan(plain.length / 4);
  });

  it('sends gzip where brotli is not accepted, and the bytes as they are where nothing is', async () => {
    const gzip = await raw('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    const none = await raw('br;q=0, gzip;q=0');
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body.equals(plain)).toBe(true);
    expect(new Set([gzip.headers.etag, none.headers.etag]).size).toBe(2);
  });
});
