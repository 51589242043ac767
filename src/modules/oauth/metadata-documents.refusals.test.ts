// What a refused metadata document tells the caller (only what they could see for themselves) and what it
// tells the operator (every reason, once per host and window), D13 and D19.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.js';
import { MetadataDocumentUnavailable, type ClientMetadataFetcher, type FetchedDocument } from '../../ports/client-metadata.js';
import { metadataDocuments, REFUSAL_LOG_WINDOW_MS } from './metadata-documents.js';

const policy = { allowedHosts: [], deniedHosts: [] };

/** A host that answers every fetch with `answer`: a document, or a refusal to throw. */
function hostAnswering(answer: () => FetchedDocument | MetadataDocumentUnavailable): ClientMetadataFetcher {
  return {
    async fetch() {
      const result = answer();
      if (result instanceof MetadataDocumentUnavailable) throw result;
      return result;
    },
    close() {},
  };
}

/** The documents with a clock the test moves and the warn lines they write. */
function documentsOf(fetcher: ClientMetadataFetcher) {
  let now = 1_800_000_000_000;
  const warnings: Record<string, unknown>[] = [];
  const documents = metadataDocuments(fetcher, { now: () => now }, policy, { warn: (obj, msg) => warnings.push({ ...obj, msg }) });
  return { documents, warnings, advance: (ms: number) => (now += ms) };
}

async function descriptionOfRefusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('invalid_client');
  return (error as AppError).description;
}

const CLIENT = 'https://internal-name.example/client.json';
const wrongClientId = (fromPublicAddress: boolean): FetchedDocument => ({ body: { client_id: 'https://other.example/x.json' }, cacheControl: undefined, fromPublicAddress });

describe('a refused metadata document, as the caller reads it', () => {
  it('names no address and no DNS answer when the network is the reason', async () => {
    const { documents } = documentsOf(hostAnswering(() => new MetadataDocumentUnavailable('internal-name.example resolves to 10.1.2.3, a loopback, private or special-use address (RFC 6890)', false)));
    expect(await descriptionOfRefusal(documents.client(CLIENT))).toBe(`the client ID metadata document ${CLIENT} could not be used`);
  });

  it('gives the reason when the caller could see it for themselves (the answer of a public address)', async () => {
    const { documents } = documentsOf(hostAnswering(() => new MetadataDocumentUnavailable('the server answered HTTP 404, not 200', true)));
    expect(await descriptionOfRefusal(documents.client(CLIENT))).toBe(`the client ID metadata document ${CLIENT} could not be used: the server answered HTTP 404, not 200`);
  });

  it('says what is wrong with a document fetched from a public address, and nothing of one from a private address', async () => {
    const fromPublic = documentsOf(hostAnswering(() => wrongClientId(true)));
    expect(await descriptionOfRefusal(fromPublic.documents.client(CLIENT))).toContain('its client_id ("https://other.example/x.json") is not the URL it was fetched from');
    const fromPrivate = documentsOf(hostAnswering(() => wrongClientId(false)));
    expect(await descriptionOfRefusal(fromPrivate.documents.client(CLIENT))).toBe(`the client ID metadata document ${CLIENT} could not be used`);
  });
});

describe('a refused metadata document, as the operator reads it', () => {
  it('is logged at warn with its reason once per host and window, then with the count of the refusals swallowed', async () => {
    const reason = 'internal-name.example does not resolve (ENOTFOUND)';
    const { documents, warnings, advance } = documentsOf(hostAnswering(() => new MetadataDocumentUnavailable(reason, false)));
    for (let i = 0; i < 4; i++) await documents.client(CLIENT).catch(() => {});
    await documents.client('https://internal-name.example/another.json').catch(() => {});
    await documents.client('https://elsewhere.example/client.json').catch(() => {});
    expect(warnings).toEqual([
      { msg: 'a client ID metadata document could not be used', clientId: CLIENT, host: 'internal-name.example', reason, swallowed: 0 },
      { msg: 'a client ID metadata document could not be used', clientId: 'https://elsewhere.example/client.json', host: 'elsewhere.example', reason, swallowed: 0 },
    ]);

    advance(REFUSAL_LOG_WINDOW_MS);
    await documents.client(CLIENT).catch(() => {});
    expect(warnings.slice(2)).toEqual([expect.objectContaining({ host: 'internal-name.example', swallowed: 4 })]);
  });

  it('logs what a private address answered, which the caller is not told', async () => {
    const { documents, warnings } = documentsOf(hostAnswering(() => wrongClientId(false)));
    await documents.client(CLIENT).catch(() => {});
    expect(warnings).toEqual([expect.objectContaining({ reason: expect.stringContaining('is not the URL it was fetched from') })]);
  });
});
