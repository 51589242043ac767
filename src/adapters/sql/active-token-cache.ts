// Active access tokens held in memory on SQLite, so that a Bearer check needs no read transaction:
// the lookup (two fcntl locks and two b-tree searches, 8.5 us alone on this machine) was 7-8% of the
// contact path's CPU (docs/performance.md). An SQLite file has one serving process, so a token's row
// changes only in this process or in another one on the same file (the CLI, an operator's sqlite3):
// this process's writes that can end a token empty the cache, and another connection's commits are
// seen through PRAGMA data_version, read again once a millisecond has passed since the last read.
import type { Token } from '../../ports/oauth-store.js';
import type { DirectSqlite } from './sqlite-direct.js';

// A bound on memory, not a working set: a node sees a few live tokens per active client.
const MAX_TOKENS = 10_000;
// How stale the view of other processes' commits may be. RFC 7009 section 2.2 allows for "a
// propagation delay" and asks implementations to "minimize that window"; under load a read a
// millisecond serves several requests (3.5 us each read, against 8.5 us a lookup).
const RECHECK_AFTER_MS = 1;

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
  const dataVersion = () => (direct.statement('pragma data_version').get() as { data_version: number }).data_version;
  let seenVersion = dataVersion();
  let checkedAt = performance.now();

  /** False while a Kysely transaction is open: the pragma would join it, and could not see past its snapshot. */
  const upToDate = (): boolean => {
    if (direct.inTransaction) return false;
    const now = performance.now();
    if (now - checkedAt < RECHECK_AFTER_MS) return true;
    checkedAt = now;
    const version = dataVersion();
    if (version !== seenVersion) {
      tokens.clear();
      seenVersion = version;
    }
    return true;
  };

  return {
    get(tokenHash) {
      if (tokens.size === 0 || !upToDate()) return undefined;
      return tokens.get(tokenHash);
    },
    keep(token) {
      if (token.kind !== 'access' || token.state !== 'active') return;
      // Checked before holding: a commit by another connection before this read must not clear it later.
      if (!upToDate()) return;
      if (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value!);
      tokens.set(token.tokenHash, Object.freeze(token));
    },
    clear() {
      tokens.clear();
    },
  };
}
