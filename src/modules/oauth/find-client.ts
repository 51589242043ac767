// Which client a client_id names: a registered one, or one identified by its metadata document (D13).
import { isMetadataDocumentClientId, type Client } from '../../ports/oauth-store.js';
import type { OAuthDeps } from './oauth-deps.js';

/** undefined for an unknown client; AppError invalid_client for a metadata document that cannot be used. */
export async function findClient(deps: OAuthDeps, clientId: string): Promise<Client | undefined> {
  if (deps.metadataDocuments && isMetadataDocumentClientId(clientId)) return deps.metadataDocuments.client(clientId);
  return deps.store.getClient(clientId);
}
