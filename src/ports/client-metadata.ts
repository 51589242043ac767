// Fetching a client ID metadata document (D13): I/O behind a port, as siteverify is.

export interface FetchedDocument {
  /** The parsed JSON body; the OAuth module validates it. */
  body: unknown;
  /** The response's Cache-Control header, if any. */
  cacheControl: string | undefined;
  /**
   * Whether every address the host resolved to is public (RFC 6890). Only then may what the document says be
   * repeated to the caller: an answer from a private address (CIMD_ALLOW_PRIVATE_NETWORKS) tells of the network.
   */
  fromPublicAddress: boolean;
}

export interface ClientMetadataFetcher {
  /** GETs the document at an https URL; rejects with MetadataDocumentUnavailable saying why. */
  fetch(url: URL): Promise<FetchedDocument>;
  /** Lets go of connections, at shutdown. */
  close(): void;
}

/**
 * The document could not be had: unreachable, refused by the address guard, too slow, too big, not 200, not JSON.
 * The message is for the operator's log: it may name addresses, DNS answers and connection errors.
 * `callerMayKnow` is true only for a reason the caller could see for themselves (the answer of a public address,
 * or the URL they sent); every other reason is a fact about the network, never told to the caller (D19).
 */
export class MetadataDocumentUnavailable extends Error {
  override name = 'MetadataDocumentUnavailable';
  constructor(
    message: string,
    readonly callerMayKnow: boolean,
  ) {
    super(message);
  }
}
