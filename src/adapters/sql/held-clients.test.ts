import { describe, expect, it } from 'vitest';
import type { Client } from '../../ports/oauth-store.js';
import { HELD_CLIENT_MS, heldClients } from './held-clients.js';

const client = (clientId: string): Client => ({
  clientId,
  secretHash: null,
  clientName: null,
  redirectUris: [],
  grantTypes: ['client_credentials'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  scope: 'contact:write',
  applicationType: null,
  createdAt: 0,
  lastUsedAt: null,
});

describe('held clients', () => {
  it('holds a client for HELD_CLIENT_MS, then asks for it to be read again', () => {
    let now = 1_000;
    const held = heldClients(() => now);
    held.keep(client('a'));
    now += HELD_CLIENT_MS - 1;
    expect(held.get('a')?.clientId).toBe('a');
    now += 1;
    expect(held.get('a')).toBeUndefined();
  });

  it("records this node's last use of a held client, and forgets one on request", () => {
    const held = heldClients(() => 0);
    held.keep(client('a'));
    held.touched('a', 42);
    expect(held.get('a')?.lastUsedAt).toBe(42);
    held.forget('a');
    expect(held.get('a')).toBeUndefined();
  });
});
