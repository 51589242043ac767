// One node at a time for periodic jobs that must not run twice at once (retention): a lease held in
// the shared database, taken when free or expired, renewed by its holder.

export interface JobLeases {
  /** True when `holder` holds the lease `name` until `until` (it was free, expired at `now`, or its own). */
  claim(name: string, holder: string, now: number, until: number): Promise<boolean>;
}
