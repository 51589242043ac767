// A serving node's SQLite checkpoints, run on a thread of their own. SQLite checkpoints the write-ahead
// log in whichever connection commits past 1,000 pages, synchronously: on the node's connection that
// is the event loop, stopped while pages are copied and both files synced, as often as the node or a
// command beside it (`inquiries purge`) writes a few megabytes. Here the node's connection never
// checkpoints; a worker thread with its own connection does, every CHECKPOINT_INTERVAL_MS
// (sqlite.org/wal.html#checkpointing, sqlite.org/c3ref/wal_checkpoint_v2.html).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Handle } from './direct.js';

const CHECKPOINT_INTERVAL_MS = 250;
/** SQLite's own default, restored on the node's connection when the thread stops for any reason but stop(). */
const AUTO_CHECKPOINT_PAGES = 1000;

interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Checkpoints the database in the background until stop(); undefined for an in-memory database. */
export function checkpointInBackground(sqlite: Handle, log: Log, intervalMs = CHECKPOINT_INTERVAL_MS): { stop(): Promise<void> } | undefined {
  if (sqlite.memory) return undefined;
  const workerData: CheckpointerData = { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path: sqlite.name, intervalMs };
  // The thread's code is this module's own function, as source: it needs no file of its own beside the
  // compiled one, and runs the same from src/ under the tests.
  const worker = new Worker(`(${checkpointer.toString()})(require('node:worker_threads'))`, { eval: true, workerData });
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  // Not events.once: it would reject on the thread's 'error' event, which is reported below.
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.on('message', (message: { failed: string }) => log.warn({ err: message.failed }, 'sqlite: a background checkpoint failed; the next one tries again'));
  worker.on('error', (error) => log.error({ err: error }, 'sqlite: the checkpoint thread failed'));
  worker.on('exit', () => {
    if (stopping || !sqlite.open) return;
    // The write-ahead log would grow without end: the node's connection checkpoints again, as SQLite does.
    sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.error({}, 'sqlite: the checkpoint thread stopped; the serving connection checkpoints again');
  });
  // After the listeners, which would hold it again: the thread never keeps the process from exiting.
  worker.unref();
  return {
    async stop() {
      stopping = true;
      // Held again while it closes its connection: the process would otherwise end before it has.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

interface CheckpointerData {
  /** better-sqlite3's entry point: an eval'd thread resolves modules from the working directory. */
  driver: string;
  path: string;
  intervalMs: number;
}

/** The thread's body. It runs as source in a new thread: nothing from outside it but its argument and `require`. */
function checkpointer({ parentPort, workerData }: typeof import('node:worker_threads')): void {
  const { driver, path, intervalMs } = workerData as CheckpointerData;
  // This function's source runs in the worker as a script, where `require` is what there is.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const SQLite = require(driver) as typeof import('better-sqlite3');
  // The node's database, never a new one beside it.
  const db = new SQLite(path, { fileMustExist: true });
  // RESTART waits in this thread for the writer's lock and the readers, a second at most, and tries again next time.
  db.pragma('busy_timeout = 1000');
  const timer = setInterval(() => {
    try {
      // PASSIVE copies the log's pages without locking anyone out. The node commits meanwhile, so the log
      // never ends up copied whole, and SQLite starts it again from the beginning only once it has
      // been: RESTART copies the few pages left, holding writers off for that long (the node's
      // group commit waits without stopping its event loop), and lets the next commit start the log anew.
      db.pragma('wal_checkpoint(PASSIVE)');
      db.pragma('wal_checkpoint(RESTART)');
    } catch (error) {
      parentPort!.postMessage({ failed: String(error) });
    }
  }, intervalMs);
  parentPort!.once('message', () => {
    clearInterval(timer);
    db.close();
    parentPort!.close();
  });
}
