// GETs client ID metadata documents over https, guarded against SSRF (D13): the host must resolve to public
// addresses only, and the connection goes to an address that was checked, so a second DNS answer (rebinding)
// can never redirect it. No redirects, 200 only, JSON only, a size cap and one deadline for the whole exchange.
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { MetadataDocumentUnavailable, type ClientMetadataFetcher, type FetchedDocument } from '../../ports/client-metadata.js';
import { isPublicAddress } from './public-address.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface HttpsFetcherOptions {
  timeoutMs: number;
  maxBytes: number;
  /** CIMD_ALLOW_PRIVATE_NETWORKS: loopback and private addresses are reachable too. */
  allowPrivateNetworks: boolean;
  /** The resolver; the system's (getaddrinfo, as every other connection of the process) by default. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * A CA certificate (PEM) trusted besides Node's own, for a process whose NODE_EXTRA_CA_CERTS was fixed at
   * start (tests in one process). Operators use NODE_EXTRA_CA_CERTS.
   */
  extraCa?: string;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, order: 'verbatim' });
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/**
 * Fetches client metadata documents; every refusal (a URL not https, a private address, a redirect, an
 * answer not JSON or too large, the deadline) rejects with MetadataDocumentUnavailable, which says whether
 * the caller may read its reason. close() ends its sockets.
 */
export function httpsMetadataFetcher(options: HttpsFetcherOptions): ClientMetadataFetcher {
  const resolve = options.resolve ?? systemResolve;
  // Documents are fetched rarely (once per client per cache period): no keep-alive, a bound on sockets.
  const agent = new Agent({ keepAlive: false, maxTotalSockets: 32, ...(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}) });
  // Reasons about the network (DNS answers, addresses, connection and TLS errors, time) are for the log only.
  const unavailable = (reason: string) => new MetadataDocumentUnavailable(reason, false);

  /** The addresses to connect to: every one the name resolves to must be allowed, or none is used. */
  async function checkedAddresses(hostname: string): Promise<ResolvedAddress[]> {
    const literal = hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: ResolvedAddress[];
    if (isIP(literal)) addresses = [{ address: literal, family: isIP(literal) }];
    else {
      try {
        addresses = await resolve(hostname);
      } catch (error) {
        throw unavailable(`${hostname} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    }
    if (!addresses.length) throw unavailable(`${hostname} does not resolve`);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused && !options.allowPrivateNetworks) {
      throw unavailable(`${hostname} resolves to ${refused.address}, a loopback, private or special-use address (RFC 6890)`);
    }
    return addresses;
  }

  function get(url: URL, addresses: ResolvedAddress[], signal: AbortSignal): Promise<FetchedDocument> {
    // Node asks this instead of resolving again: it only ever hands out the addresses checked above.
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) (callback as (e: null, all: ResolvedAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    const requestOptions: RequestOptions = {
      method: 'GET',
      agent,
      lookup: pinned,
      signal,
      headers: { accept: 'application/json', 'user-agent': 'Portico (client ID metadata document)' },
    };
    // What a public host answered, the caller can see for themselves; what a private one answered they may not.
    const fromPublicAddress = addresses.every((a) => isPublicAddress(a.address));
    const badAnswer = (reason: string) => new MetadataDocumentUnavailable(reason, fromPublicAddress);
    return new Promise((settle, fail) => {
      const req = request(url, requestOptions, (response: IncomingMessage) => {
        const refuse = (reason: string) => {
          req.destroy();
          fail(badAnswer(reason));
        };
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) return refuse(`the server answered HTTP ${status}; redirects are not followed`);
        if (status !== 200) return refuse(`the server answered HTTP ${status}, not 200`);
        const type = (response.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
        if (!JSON_MEDIA_TYPE.test(type)) return refuse(`the answer is ${type || 'without a Content-Type'}, not application/json`);
        const encoding = response.headers['content-encoding'];
        if (encoding && encoding !== 'identity') return refuse(`the answer has Content-Encoding ${encoding}, which was not asked for`);
        if (Number(response.headers['content-length']) > options.maxBytes) return refuse(`the document is larger than ${options.maxBytes} bytes`);
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) refuse(`the document is larger than ${options.maxBytes} bytes`);
          else chunks.push(chunk);
        });
        response.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return fail(badAnswer('the document is not valid JSON'));
          }
          settle({ body, cacheControl: response.headers['cache-control'], fromPublicAddress });
        });
        response.on('error', (error) => fail(unavailable(`the answer was cut off (${error.message})`)));
      });
      req.on('error', (error: NodeJS.ErrnoException) =>
        fail(unavailable(signal.aborted ? `no answer within ${options.timeoutMs} ms` : `the server could not be reached (${error.code ?? error.message})`)),
      );
      req.end();
    });
  }

  return {
    async fetch(url) {
      if (url.protocol !== 'https:') throw new MetadataDocumentUnavailable('only https URLs are fetched', true);
      const signal = AbortSignal.timeout(options.timeoutMs);
      const deadline = new Promise<never>((_, fail) => signal.addEventListener('abort', () => fail(unavailable(`no answer within ${options.timeoutMs} ms`)), { once: true }));
      deadline.catch(() => {});
      const addresses = await Promise.race([checkedAddresses(url.hostname), deadline]);
      return Promise.race([get(url, addresses, signal), deadline]);
    },
    close() {
      agent.destroy();
    },
  };
}
