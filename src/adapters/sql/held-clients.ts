// Registered clients held in memory, so that the token endpoint's client authentication
// needs no round trip to the database. A client row never changes once registered, but for its last
// use; what another node can do to it is delete it, and then saveTokens refuses its tokens (the insert
// checks the row under a lock), so a held client costs at worst a consent page shown for a deleted
// client until it is read again.

import type { Client } from '../../ports/oauth-store.js';

/** How long a held client is trusted before it is read again; the port promises no more than this. */
export const HELD_CLIENT_MS = 30_000;
// A bound on memory, not a working set: clients are few next to tokens.
const MAX_CLIENTS = 10_000;

export interface HeldClients {
  get(clientId: string): Client | undefined;
  keep(client: Client): void;
  /** This node recorded the client's last use: the held client says so too. */
  touched(clientId: string, at: number): void;
  forget(clientId: string): void;
}

/** `now` in milliseconds, monotonic (performance.now by default). */
export function heldClients(now: () => number = () => performance.now()): HeldClients {
  const held = new Map<string, { client: Client; until: number }>();
  return {
    get(clientId) {
      const entry = held.get(clientId);
      if (!entry) return undefined;
      if (entry.until > now()) return entry.client;
      held.delete(clientId);
      return undefined;
    },
    keep(client) {
      if (held.size >= MAX_CLIENTS && !held.has(client.clientId)) held.delete(held.keys().next().value!);
      held.set(client.clientId, { client: Object.freeze(client), until: now() + HELD_CLIENT_MS });
    },
    touched(clientId, at) {
      const entry = held.get(clientId);
      if (entry) entry.client = Object.freeze({ ...entry.client, lastUsedAt: at });
    },
    forget: (clientId) => void held.delete(clientId),
  };
}
