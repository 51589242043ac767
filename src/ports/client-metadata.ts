// Fetching a client ID metadata document (D13): I/O behind a port, as siteverify is.

export interface FetchedDocument {
  /** The parsed JSON body; the OAuth module validates it. */
  body: unknown;
  /** The response's Cache-Control header, if any. */
  cacheControl: string | undefined;
}

export interface ClientMetadataFetcher {
  /** GETs the document at an https URL; rejects with MetadataDocumentUnavailable saying why. */
  fetch(url: URL): Promise<FetchedDocument>;
  /** Lets go of connections, at shutdown. */
  close(): void;
}

/** The document could not be had: unreachable, refused by the address guard, too slow, too big, not 200, not JSON. */
export class MetadataDocumentUnavailable extends Error {
  override name = 'MetadataDocumentUnavailable';
}
