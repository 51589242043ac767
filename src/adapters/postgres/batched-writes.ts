// Group commit for the Kysely path (PostgreSQL): writes issued in the same turn of the event loop share
// one multi-row statement and one commit. SQLite has its own, in ../sqlite/direct.ts.

const MAX_ROWS_PER_STATEMENT = 500;

/**
 * Wraps a multi-row write so concurrent callers are batched. `write` returns the rows it refused (a
 * condition the statement checks per row); each caller's promise settles with its batch: true when
 * every one of its rows was written.
 */
export function batchedWrites<Row>(write: (rows: Row[]) => Promise<ReadonlySet<Row>>): (rows: Row[]) => Promise<boolean> {
  let waiting: { rows: Row[]; resolve(written: boolean): void; reject(error: unknown): void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    try {
      const refused = new Set<Row>();
      // A caller's rows stay in one statement (one commit): they are written together or not at all.
      for (let start = 0; start < batch.length;) {
        const rows: Row[] = [];
        let end = start;
        while (end < batch.length && (rows.length === 0 || rows.length + batch[end]!.rows.length <= MAX_ROWS_PER_STATEMENT)) rows.push(...batch[end++]!.rows);
        for (const row of await write(rows)) refused.add(row);
        start = end;
      }
      for (const entry of batch) entry.resolve(!entry.rows.some((row) => refused.has(row)));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (rows) =>
    new Promise<boolean>((resolve, reject) => {
      if (!waiting.length) setImmediate(() => void flush());
      waiting.push({ rows, resolve, reject });
    });
}
