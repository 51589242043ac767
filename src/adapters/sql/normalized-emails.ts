// The `email_normalized` column filled in from `email`, for rows that lack it: every row of a database
// an earlier release made (the backfill 0009), and rows a node of that release inserts beside new ones
// during a rolling upgrade. Computed here rather than in SQL: neither engine has IDNA, SQLite not even NFKC.
import { sql, type QueryExecutorProvider } from 'kysely';
import { normalizeEmail } from '../../ports/normalize-email.js';

const FILL_BATCH = 500;

/** Fills the column of up to `limit` rows without it, in one statement; returns how many. */
export async function fillNormalizedEmailBatch(db: QueryExecutorProvider, limit = FILL_BATCH): Promise<number> {
  // The NULL end of inquiries_email_normalized, in no particular order: a filled row leaves it, so each
  // batch reads only rows still to fill, and none at all once every row has its form.
  const rows = await sql<{ id: string; email: string }>`select id, email from inquiries where email_normalized is null limit ${limit}`.execute(db);
  if (!rows.rows.length) return 0;
  const values = sql.join(rows.rows.map((row) => sql`(${row.id}, ${normalizeEmail(row.email)})`));
  // Both engines take UPDATE ... FROM a common table expression.
  await sql`with normalized (id, email) as (values ${values}) update inquiries set email_normalized = normalized.email from normalized where inquiries.id = normalized.id`.execute(db);
  return rows.rows.length;
}

/** Rows still without the column. */
export async function countUnnormalizedEmails(db: QueryExecutorProvider): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`select count(*) as count from inquiries where email_normalized is null`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

/** Fills the column of every row without it, a batch a statement; returns how many. */
export async function fillNormalizedEmails(db: QueryExecutorProvider): Promise<number> {
  let filled = 0;
  for (;;) {
    const batch = await fillNormalizedEmailBatch(db);
    filled += batch;
    if (batch < FILL_BATCH) return filled;
  }
}
