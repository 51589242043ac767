// The `email_normalized` column filled in from `email`, for rows that lack it: every row of a database
// an earlier version made (migration 0007), and rows an earlier version's node inserts beside new ones
// during a rolling upgrade. Computed here rather than in SQL: neither engine has IDNA, SQLite not even NFKC.
import { sql, type QueryExecutorProvider } from 'kysely';
import { normalizeEmail } from '../../ports/normalize-email.js';

const FILL_BATCH = 500;

/** Fills the column of every row without it, a batch of 500 rows a statement; returns how many. */
export async function fillNormalizedEmails(db: QueryExecutorProvider): Promise<number> {
  let filled = 0;
  for (;;) {
    // The NULL end of inquiries_email_normalized, in no particular order: a filled row leaves it, so each
    // batch reads only rows still to fill, and none at all once every row has its form.
    const rows = await sql<{ id: string; email: string }>`select id, email from inquiries where email_normalized is null limit ${FILL_BATCH}`.execute(db);
    if (!rows.rows.length) return filled;
    const values = sql.join(rows.rows.map((row) => sql`(${row.id}, ${normalizeEmail(row.email)})`));
    // One statement a batch; both engines take UPDATE ... FROM a common table expression.
    await sql`with normalized (id, email) as (values ${values}) update inquiries set email_normalized = normalized.email from normalized where inquiries.id = normalized.id`.execute(db);
    filled += rows.rows.length;
    if (rows.rows.length < FILL_BATCH) return filled;
  }
}
