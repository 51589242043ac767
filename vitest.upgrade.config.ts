// The upgrade suite (`npm run test:upgrade`, run by .ci/run after `npm test`): the release before, built from
// git, rolled forward to this tree under traffic; minutes each, and the first build a few more.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/upgrade/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    // One roll at a time: each runs several nodes, and their timings are what is judged.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
