// The inquiry store on PostgreSQL: the portable Kysely store, its duplicate check serialized across nodes.
import { sql } from 'kysely';
import type { InquiryStore } from '../../ports/inquiry-store.js';
import { sqlInquiryStore } from '../sql/inquiry-store.js';
import type { Db } from '../sql/schema.js';

// The first key of PostgreSQL's two-key advisory locks taken while an inquiry is compared with earlier
// ones; the second is its content hash's hashtext. A number of Portico's own, apart from other users' locks.
const DUPLICATE_LOCK_CLASS = 0x506f7274; // "Port"

export function postgresInquiryStore(db: Db): InquiryStore {
  return sqlInquiryStore(db, {
    // Two nodes storing the same inquiry at once would each find no earlier one: the second waits here for
    // the first to commit, and its next statement, in a snapshot of its own (READ COMMITTED), sees it.
    async serializeDuplicates(trx, contentHash) {
      await sql`select pg_advisory_xact_lock(${DUPLICATE_LOCK_CLASS}, hashtext(${contentHash}))`.execute(trx);
    },
  });
}
