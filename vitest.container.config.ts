// The container suite (`npm run test:container`, run by .ci/run after `npm test`): builds Portico's
// image and runs it and the compose files in a Docker engine. Minutes, mostly the first build.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    globalSetup: ['test/container/global-setup.ts'],
    // One engine, one set of ports: the files run one after the other.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
