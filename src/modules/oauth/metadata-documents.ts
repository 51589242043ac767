// Clients identified by metadata documents (D13): fetched through the port, validated, and cached within
// bounds, so that the authorize and token paths of a known client cost a map lookup.
import { AppError } from '../../errors.js';
import { oncePerWindow } from '../common/once-per-window.js';
import type { Clock } from '../../ports/clock.js';
import { MetadataDocumentUnavailable, type ClientMetadataFetcher } from '../../ports/client-metadata.js';
import type { Client } from '../../ports/oauth-store.js';
import { clientFromDocument, parseClientIdUrl } from './client-metadata-document.js';

export interface MetadataDocumentPolicy {
  /** Host names whose documents are fetched; empty means any host not denied. */
  allowedHosts: readonly string[];
  deniedHosts: readonly string[];
}

/** Where the detail of a refused document goes: the operator's log. */
export interface RefusalLog {
  warn(obj: object, msg: string): void;
}

export interface MetadataDocuments {
  /** The client the document at `clientId` describes; AppError invalid_client when there is none. */
  client(clientId: string): Promise<Client>;
}

/**
 * Cache-Control max-age is honoured between a floor and a ceiling. The floor keeps one authorization
 * (authorize, then the code exchange a minute later) on one fetch even when the host says no-store; the
 * ceiling bounds how long a changed or removed document goes unnoticed: within it, every node has fetched
 * the document again, so a client whose document is gone gets no more tokens anywhere.
 */
export const CACHE_FLOOR_MS = 60_000;
export const CACHE_CEILING_MS = 3_600_000;
/** Without a max-age. */
export const CACHE_DEFAULT_MS = 300_000;
/** Bounded, so that many distinct client URLs cannot grow a node's memory: the least recently used go first. */
export const CACHE_MAX_ENTRIES = 1_000;
/** A refused document is logged once per host in this window, with the count of the refusals it stands for. */
export const REFUSAL_LOG_WINDOW_MS = 600_000;

interface Entry {
  client: Client;
  expiresAt: number;
  /** The cache's use count when the entry was last used: the smallest is the least recently used. */
  lastUse: number;
}

/**
 * Clients by their metadata document URL, fetched once for concurrent callers and cached within bounds.
 * A denied host, a failed fetch or a document that describes no client throws invalid_client; failures are
 * not cached. The caller reads why only when the reason is one they could see for themselves; the operator
 * reads every reason in `log`, once per host and window.
 */
export function metadataDocuments(fetcher: ClientMetadataFetcher, clock: Clock, policy: MetadataDocumentPolicy, log: RefusalLog): MetadataDocuments {
  const cache = new Map<string, Entry>();
  let uses = 0;
  // Concurrent requests for one document share one fetch.
  const fetching = new Map<string, Promise<Client>>();
  // A caller can make refusals as fast as it can send requests: one line per host and window is enough.
  const gate = oncePerWindow(clock, REFUSAL_LOG_WINDOW_MS);

  /**
   * D19: a refusal tells the caller nothing of the network (which names resolve, to what, what answers
   * there), or the endpoints would be a DNS and port oracle. The operator reads the detail.
   */
  function logRefusal(clientId: string, url: URL, reason: string): void {
    const swallowed = gate(url.hostname);
    if (swallowed !== undefined) log.warn({ clientId, host: url.hostname, reason, swallowed }, 'a client ID metadata document could not be used');
  }

  async function load(clientId: string, url: URL): Promise<Client> {
    let fetched;
    try {
      fetched = await fetcher.fetch(url);
    } catch (error) {
      if (!(error instanceof MetadataDocumentUnavailable)) throw error;
      logRefusal(clientId, url, error.message);
      // Failures are never cached: the next request tries again.
      throw couldNotBeUsed(clientId, error.callerMayKnow ? error.message : undefined);
    }
    const now = clock.now();
    let client: Client;
    try {
      client = clientFromDocument(clientId, fetched.body, now);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      logRefusal(clientId, url, error.description);
      // What the caller's own document says is told back, once it came from a public address.
      throw fetched.fromPublicAddress ? error : couldNotBeUsed(clientId, undefined);
    }
    if (!cache.has(clientId) && cache.size >= CACHE_MAX_ENTRIES) cache.delete(leastRecentlyUsed());
    cache.set(clientId, { client, expiresAt: now + lifetimeMs(fetched.cacheControl), lastUse: ++uses });
    return client;
  }

  // A hit only counts a use. Moving it to the end of the Map instead (delete, then set) makes V8 rebuild the
  // long-lived Map's table in the old generation every request or two, and so run full collections under
  // load; the scan for the least recently used runs on a fetch only.
  function leastRecentlyUsed(): string {
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [clientId, entry] of cache) {
      if (entry.lastUse >= oldestUse) continue;
      oldest = clientId;
      oldestUse = entry.lastUse;
    }
    return oldest!;
  }

  return {
    async client(clientId) {
      const cached = cache.get(clientId);
      if (cached && cached.expiresAt > clock.now()) {
        cached.lastUse = ++uses;
        return cached.client;
      }
      const url = parseClientIdUrl(clientId);
      const host = url.hostname;
      if (policy.deniedHosts.includes(host) || (policy.allowedHosts.length && !policy.allowedHosts.includes(host))) {
        throw new AppError('invalid_client', `client ID metadata documents from ${host} are not accepted by this server`);
      }
      let pending = fetching.get(clientId);
      if (!pending) {
        pending = load(clientId, url).finally(() => fetching.delete(clientId));
        fetching.set(clientId, pending);
      }
      return pending;
    },
  };
}

/** invalid_client for a document that could not be used, with a reason only when the caller may read it. */
function couldNotBeUsed(clientId: string, reason: string | undefined): AppError {
  const description = `the client ID metadata document ${clientId} could not be used`;
  return new AppError('invalid_client', reason === undefined ? description : `${description}: ${reason}`);
}

/** RFC 9111 section 5.2.2: max-age (no-store and no-cache count as 0), clamped to [floor, ceiling]. */
export function lifetimeMs(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return CACHE_FLOOR_MS;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  const wanted = maxAge === undefined ? CACHE_DEFAULT_MS : Number(maxAge) * 1000;
  return Math.min(CACHE_CEILING_MS, Math.max(CACHE_FLOOR_MS, wanted));
}
