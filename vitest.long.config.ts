// The long suites (`npm run test:long`, run by .ci/run after `npm test`): real-time outages and relays,
// minutes each, kept out of the everyday run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/long/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
