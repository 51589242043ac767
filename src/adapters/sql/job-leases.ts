// JobLeases as one row per job (portico_job_leases, migration 0005): an upsert that takes the row only
// when it is free, expired or already the holder's, which both engines decide atomically.
import type { JobLeases } from '../../ports/job-leases.js';
import type { Db } from './schema.js';

/** JobLeases over portico_job_leases: claim() answers whether `holder` took or kept the lease. */
export function sqlJobLeases(db: Db): JobLeases {
  return {
    async claim(name, holder, now, until) {
      const row = await db
        .insertInto('portico_job_leases')
        .values({ name, holder, expires_at: until })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet((eb) => ({ holder: eb.ref('excluded.holder'), expires_at: eb.ref('excluded.expires_at') }))
            .where((eb) => eb.or([eb('portico_job_leases.expires_at', '<=', now), eb('portico_job_leases.holder', '=', holder)])),
        )
        .returning('holder')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
