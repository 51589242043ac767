// Active access tokens and clients held in memory on SQLite, so that a Bearer check or a client's
// authentication needs no read transaction: each lookup (two fcntl locks and two b-tree searches) is a
// large part of a cheap request (docs/design.md). An SQLite file has one serving process, so these rows change only
// in this process or in another one on the same file (the CLI, an operator's sqlite3): this
// process's writes that can end a token or a client empty the cache, and another connection's
// commits are seen through PRAGMA data_version, read again once a millisecond has passed.
import type { Client, Token } from '../../ports/oauth-store.js';
import type { DirectSqlite } from './direct.js';

// A bound on memory, not a working set: a node sees a few live tokens per active client.
const MAX_ROWS = 10_000;
// How stale the view of other processes' commits may be. RFC 7009 section 2.2 allows for "a
// propagation delay" and asks implementations to "minimize that window"; under load one read a
// millisecond serves several requests, each of which would otherwise make a lookup of its own.
const RECHECK_AFTER_MS = 1;

export interface OAuthRowCache {
  /** The token if it is held and no other connection has committed since it was read. */
  token(tokenHash: string): Token | undefined;
  /** Holds `token` if it is an active access token, the only kind a Bearer check accepts. */
  keepToken(token: Token): void;
  /** The client if it is held and no other connection has committed since it was read. */
  client(clientId: string): Client | undefined;
  keepClient(client: Client): void;
  /** This process recorded the client's last use (committed): the held client says so too. */
  touched(clientId: string, at: number): void;
  /** Forgets every row: called before and after each of this process's writes that can end one. */
  clear(): void;
}

const caches = new WeakMap<DirectSqlite, OAuthRowCache>();

/** The cache of one connection, shared by every store on it: any of them may end a row. */
export function oauthRowCache(direct: DirectSqlite): OAuthRowCache {
  let cache = caches.get(direct);
  if (!cache) caches.set(direct, (cache = open(direct)));
  return cache;
}

function open(direct: DirectSqlite): OAuthRowCache {
  const tokens = new Map<string, Token>();
  const clients = new Map<string, Client>();
  // "The integer values returned by two invocations of PRAGMA data_version from the same connection
  // will be different if changes were committed to the database by any other connection in the
  // interim" (sqlite.org/pragma.html#pragma_data_version); this connection's own commits leave it.
  const dataVersion = () => (direct.statement('pragma data_version').get() as { data_version: number }).data_version;
  let seenVersion = dataVersion();
  let checkedAt = performance.now();
  const clear = () => {
    tokens.clear();
    clients.clear();
  };

  /** False while a Kysely transaction is open: the pragma would join it, and could not see past its snapshot. */
  const upToDate = (): boolean => {
    if (direct.inTransaction) return false;
    const now = performance.now();
    if (now - checkedAt < RECHECK_AFTER_MS) return true;
    checkedAt = now;
    const version = dataVersion();
    if (version !== seenVersion) {
      clear();
      seenVersion = version;
    }
    return true;
  };
  const lookup = <T>(rows: Map<string, T>, key: string) => (rows.size === 0 || !upToDate() ? undefined : rows.get(key));
  // Checked before holding: a commit by another connection before this read must not clear it later.
  const hold = <T extends object>(rows: Map<string, T>, key: string, row: T) => {
    if (!upToDate()) return;
    if (rows.size >= MAX_ROWS && !rows.has(key)) rows.delete(rows.keys().next().value!);
    rows.set(key, Object.freeze(row));
  };

  return {
    token: (tokenHash) => lookup(tokens, tokenHash),
    keepToken(token) {
      if (token.kind === 'access' && token.state === 'active') hold(tokens, token.tokenHash, token);
    },
    client: (clientId) => lookup(clients, clientId),
    keepClient: (client) => hold(clients, client.clientId, client),
    touched(clientId, at) {
      const client = clients.get(clientId);
      if (client) clients.set(clientId, Object.freeze({ ...client, lastUsedAt: at }));
    },
    clear,
  };
}
