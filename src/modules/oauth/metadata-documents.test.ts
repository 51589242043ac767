import { describe, expect, it } from 'vitest';
import type { ClientMetadataFetcher } from '../../ports/client-metadata.js';
import { CACHE_MAX_ENTRIES, metadataDocuments } from './metadata-documents.js';

// A host that serves a valid document at every URL and counts what it is asked for.
function countingHost() {
  const fetches = new Map<string, number>();
  const fetcher: ClientMetadataFetcher = {
    async fetch(url) {
      fetches.set(url.href, (fetches.get(url.href) ?? 0) + 1);
      const body = { client_id: url.href, client_name: 'Hosted MCP client', redirect_uris: ['https://hosted.example/callback'], token_endpoint_auth_method: 'none' };
      return { body, cacheControl: 'max-age=3600', fromPublicAddress: true };
    },
    close() {},
  };
  return { fetcher, fetchesOf: (url: string) => fetches.get(url) ?? 0 };
}

const clientUrl = (n: number) => `https://hosted.example/clients/${n}.json`;
const clock = { now: () => 1_800_000_000_000 };
const silent = { warn() {} };

describe('the metadata document cache', () => {
  it('fetches a document once while it is fresh', async () => {
    const host = countingHost();
    const documents = metadataDocuments(host.fetcher, clock, { allowedHosts: [], deniedHosts: [] }, silent);
    for (let i = 0; i < 3; i++) expect((await documents.client(clientUrl(1))).clientId).toBe(clientUrl(1));
    expect(host.fetchesOf(clientUrl(1))).toBe(1);
  });

  it('when full, lets go of the least recently used document and keeps one used since it was fetched', async () => {
    const host = countingHost();
    const documents = metadataDocuments(host.fetcher, clock, { allowedHosts: [], deniedHosts: [] }, silent);
    for (let n = 0; n < CACHE_MAX_ENTRIES; n++) await documents.client(clientUrl(n));
    // The first fetched is used again: the second is now the least recently used.
    await documents.client(clientUrl(0));
    await documents.client(clientUrl(CACHE_MAX_ENTRIES));

    for (const kept of [0, 2, CACHE_MAX_ENTRIES - 1]) await documents.client(clientUrl(kept));
    await documents.client(clientUrl(1));
    expect([0, 1, 2, CACHE_MAX_ENTRIES - 1].map((n) => host.fetchesOf(clientUrl(n)))).toEqual([1, 2, 1, 1]);
  });
});
