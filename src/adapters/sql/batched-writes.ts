// Group commit for the Kysely path (PostgreSQL): writes issued in the same turn of the event loop share
// one multi-row statement and one commit. SQLite has its own, in sqlite-direct.ts.

const MAX_ROWS_PER_STATEMENT = 500;

/** Wraps a multi-row write so concurrent callers are batched; each caller's promise settles with its batch. */
export function batchedWrites<Row>(write: (rows: Row[]) => Promise<void>): (rows: Row[]) => Promise<void> {
  let waiting: { rows: Row[]; resolve(): void; reject(error: unknown): void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    const rows = batch.flatMap((entry) => entry.rows);
    try {
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_STATEMENT) await write(rows.slice(i, i + MAX_ROWS_PER_STATEMENT));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (rows) =>
    new Promise<void>((resolve, reject) => {
      if (!waiting.length) setImmediate(flush);
      waiting.push({ rows, resolve, reject });
    });
}
