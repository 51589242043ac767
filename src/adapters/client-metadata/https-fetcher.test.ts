// The metadata document fetch: the SSRF guard (RFC 6890 addresses, names, rebinding) and every way a host
// can answer badly, against a real HTTPS server on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataDocumentUnavailable } from '../../ports/client-metadata.js';
import { clientDocument, startDocumentServer, type DocumentServer } from '../../../test/support/metadata-document-server.js';
import { httpsMetadataFetcher, type HttpsFetcherOptions, type ResolvedAddress } from './https-fetcher.js';

let host: DocumentServer;
beforeAll(async () => {
  host = await startDocumentServer();
});
afterAll(() => host.close());

const fetcher = (options: Partial<HttpsFetcherOptions> = {}) => httpsMetadataFetcher({ timeoutMs: 2_000, maxBytes: 5120, allowPrivateNetworks: false, extraCa: host.cert, ...options });

/** The refusal the fetch of `url` rejects with. */
async function refusalOf(url: string, options: Partial<HttpsFetcherOptions> = {}): Promise<MetadataDocumentUnavailable> {
  const error = await fetcher(options)
    .fetch(new URL(url))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(MetadataDocumentUnavailable);
  return error as MetadataDocumentUnavailable;
}

/** The reason the fetch of `url` is refused with (for the operator's log). */
const refusal = async (url: string, options: Partial<HttpsFetcherOptions> = {}) => (await refusalOf(url, options)).message;

/** A DNS server that answers `answers` in turn (the last one from then on), counting questions. */
function resolverAnswering(...answers: ResolvedAddress[][]) {
  const asked: string[] = [];
  return { asked, resolve: async (hostname: string) => (asked.push(hostname), answers[Math.min(asked.length, answers.length) - 1]!) };
}
const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

describe('the SSRF guard, on by default', () => {
  it.each([
    ['an IPv4 loopback literal', () => `${host.origin}/doc.json`],
    ['an IPv6 loopback literal', () => 'https://[::1]/doc.json'],
    ['an IPv4-mapped IPv6 literal of loopback', () => 'https://[::ffff:127.0.0.1]/doc.json'],
    ['a private IPv4 literal', () => 'https://10.0.0.7/doc.json'],
  ])('refuses %s without connecting', async (_case, url) => {
    const before = host.hits.length;
    expect(await refusal(url())).toMatch(/is a loopback, private or special-use address|resolves to .*special-use/);
    expect(host.hits.length).toBe(before);
  });

  it('refuses a name the system resolves to loopback (localhost)', async () => {
    expect(await refusal('https://localhost/doc.json')).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback, private or special-use address/);
  });

  it.each([
    ['RFC 1918 private', [v4('192.168.1.20')]],
    ['link-local (cloud instance metadata)', [v4('169.254.169.254')]],
    ['carrier-grade NAT', [v4('100.64.3.4')]],
    ['unspecified', [v4('0.0.0.0')]],
    ['IPv6 unique-local', [v6('fd12:3456::1')]],
    ['IPv6 link-local', [v6('fe80::1')]],
    ['NAT64 of loopback', [v6('64:ff9b::7f00:1')]],
    ['a public and a loopback address at once (multi-answer rebinding)', [v4('93.184.215.14'), v4('127.0.0.1')]],
  ])('refuses a name that resolves to %s', async (_case, answer) => {
    const dns = resolverAnswering(answer);
    expect(await refusal('https://metadata.attacker.example/doc.json', { resolve: dns.resolve })).toMatch(/^metadata\.attacker\.example resolves to .* special-use address \(RFC 6890\)$/);
  });

  it('connects only to the address it checked: a name is resolved once, whatever a second answer would be', async () => {
    // With private networks allowed, so the checked address can be the loopback server; a second lookup
    // would answer 127.0.0.3, where nothing listens.
    const url = host.publish('/pinned.json', { ok: true });
    const dns = resolverAnswering([v4('127.0.0.1')], [v4('127.0.0.3')]);
    const fetched = await fetcher({ allowPrivateNetworks: true, resolve: dns.resolve }).fetch(new URL(url.replace('127.0.0.1', 'rebinding.test')));
    expect(fetched.body).toEqual({ ok: true });
    expect(fetched.fromPublicAddress).toBe(false);
    expect(dns.asked).toEqual(['rebinding.test']);
  });

  it('says when a name does not resolve', async () => {
    const fail = async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect(await refusal('https://nowhere.example/doc.json', { resolve: fail })).toBe('nowhere.example does not resolve (ENOTFOUND)');
  });
});

describe('fetching a document (private networks allowed, as in tests and private deployments)', () => {
  const open = { allowPrivateNetworks: true };

  it('returns the parsed JSON and its Cache-Control', async () => {
    const url = host.publish('/good.json', clientDocument('https://hosted.example/client.json'), { 'cache-control': 'max-age=600' });
    expect(await fetcher(open).fetch(new URL(url))).toEqual({ body: clientDocument('https://hosted.example/client.json'), cacheControl: 'max-age=600', fromPublicAddress: false });
  });

  it('does not follow a redirect', async () => {
    const target = host.publish('/target.json', clientDocument('https://hosted.example/client.json'));
    const url = host.route('/moved.json', (_q, r) => r.writeHead(302, { location: target }).end());
    expect(await refusal(url, open)).toBe('the server answered HTTP 302; redirects are not followed');
    expect(host.hits).not.toContain('/target.json');
  });

  it('accepts 200 only', async () => {
    expect(await refusal(`${host.origin}/missing.json`, open)).toBe('the server answered HTTP 404, not 200');
    const url = host.route('/no-content.json', (_q, r) => r.writeHead(204).end());
    expect(await refusal(url, open)).toBe('the server answered HTTP 204, not 200');
  });

  it('refuses a document over 5120 bytes, announced or streamed', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(6000) });
    const announced = host.route('/big.json', (_q, r) => r.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big));
    const streamed = host.route('/big-chunked.json', (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.write(big.slice(0, 3000));
      setTimeout(() => r.end(big.slice(3000)), 20);
    });
    expect(await refusal(announced, open)).toBe('the document is larger than 5120 bytes');
    expect(await refusal(streamed, open)).toBe('the document is larger than 5120 bytes');
  });

  it('gives up on a host that does not answer in time', async () => {
    const url = host.route('/slow.json', () => {});
    const started = Date.now();
    expect(await refusal(url, { ...open, timeoutMs: 300 })).toBe('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('refuses what is not JSON', async () => {
    const html = host.route('/page', (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Just a moment...</p>'));
    const garbled = host.route('/garbled.json', (_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": '));
    expect(await refusal(html, open)).toBe('the answer is text/html, not application/json');
    expect(await refusal(garbled, open)).toBe('the document is not valid JSON');
  });

  it('says when the host cannot be reached', async () => {
    expect(await refusal('https://127.0.0.1:1/doc.json', open)).toBe('the server could not be reached (ECONNREFUSED)');
  });

  it('verifies the certificate against the trusted CAs', async () => {
    const url = host.publish('/tls.json', clientDocument('https://hosted.example/client.json'));
    expect(await refusal(url, { ...open, extraCa: undefined })).toMatch(/^the server could not be reached \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/);
  });
});

describe('which reasons the caller may know (D19: refusals reveal nothing of the network)', () => {
  const notForTheCaller = async (url: string, options: Partial<HttpsFetcherOptions>) => expect((await refusalOf(url, options)).callerMayKnow).toBe(false);

  it('keeps DNS answers and refused addresses for the log', async () => {
    const fail = async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await notForTheCaller('https://nowhere.example/doc.json', { resolve: fail });
    await notForTheCaller('https://metadata.attacker.example/doc.json', { resolve: resolverAnswering([v4('10.1.2.3')]).resolve });
    await notForTheCaller('https://10.1.2.3/doc.json', {});
  });

  it('keeps connection, TLS and time-outs for the log', async () => {
    await notForTheCaller('https://127.0.0.1:1/doc.json', { allowPrivateNetworks: true });
    await notForTheCaller(host.publish('/tls-reason.json', {}), { allowPrivateNetworks: true, extraCa: undefined });
    await notForTheCaller(
      host.route('/slow-reason.json', () => {}),
      { allowPrivateNetworks: true, timeoutMs: 200 },
    );
  });

  it('keeps what a private address answered for the log, even with private networks allowed', async () => {
    await notForTheCaller(`${host.origin}/missing-reason.json`, { allowPrivateNetworks: true });
  });

  it('lets the caller know that only https URLs are fetched', async () => {
    expect((await refusalOf('http://hosted.example/doc.json')).callerMayKnow).toBe(true);
  });
});
