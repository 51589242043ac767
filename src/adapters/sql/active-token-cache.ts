// Active access tokens held in memory on SQLite, so that a Bearer check needs no read transaction:
// the lookup (two fcntl locks and two b-tree searches, 8.5 us alone on this machine) was 7-8% of the
// contact path's CPU (docs/performance.md). An SQLite file has one serving process, so a token's row
// changes only in this process or in another one on the same file (the CLI, an operator's sqlite3):
// this process's writes that can end a token empty the cache, and another connection's commits are
// seen through PRAGMA data_version, read at most once per turn of the event loop.
import type { Token } from '../../ports/oauth-store.js';
import type { DirectSqlite } from './sqlite-direct.js';

// A bound on memory, not a working set: a node sees a few live tokens per active client.
const MAX_TOKENS = 10_000;

export interface ActiveTokenCache {
  /** The token if it is held and no other connection has committed since it was read. */
  get(tokenHash: string): Token | undefined;
  /** Holds `token` if it is an active access token, the only kind a Bearer check accepts. */
  keep(token: Token): void;
  /** Forgets every token: called before and after each of this process's writes that can end one. */
  clear(): void;
}

const caches = new WeakMap<DirectSqlite, ActiveTokenCache>();

/** The cache of one connection, shared by every store on it: any of them may end a token. */
export function activeTokenCache(direct: DirectSqlite): ActiveTokenCache {
  let cache = caches.get(direct);
  if (!cache) caches.set(direct, (cache = open(direct)));
  return cache;
}

function open(direct: DirectSqlite): ActiveTokenCache {
  const tokens = new Map<string, Token>();
  // "The integer values returned by two invocations of PRAGMA data_version from the same connection
  // will be different if changes were committed to the database by any other connection in the
  // interim" (sqlite.org/pragma.html#pragma_data_version); this connection's own commits leave it.
  const dataVersion = () => direct.statement('pragma data_version').get() as { data_version: number };
  let seenVersion = dataVersion().data_version;
  let checkedThisTurn = false;
  const uncheck = () => {
    checkedThisTurn = false;
  };

  // One read a turn: a request that arrives after another process's commit is read in a later turn.
  const checkOtherWriters = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(uncheck);
    const version = dataVersion().data_version;
    if (version !== seenVersion) {
      tokens.clear();
      seenVersion = version;
    }
  };

  return {
    get(tokenHash) {
      if (tokens.size === 0) return undefined;
      checkOtherWriters();
      return tokens.get(tokenHash);
    },
    keep(token) {
      if (token.kind !== 'access' || token.state !== 'active') return;
      // Held from before this read: a commit by another connection before it cleared nothing held.
      checkOtherWriters();
      if (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value!);
      tokens.set(token.tokenHash, Object.freeze(token));
    },
    clear() {
      tokens.clear();
    },
  };
}
