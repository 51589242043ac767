// The release before this one: the upgrade test (test/upgrade/) builds it from this commit and rolls a
// deployment of it forward to this tree, and `portico check` says whether this release can roll back to it.
export const PREVIOUS_RELEASE = {
  commit: 'eed6bdc4c3144c9770e26b6cc5b0655403050399',
  /** The last migration it knows: the ones after it are this release's. */
  lastMigration: '0006_failed_inquiries',
} as const;
