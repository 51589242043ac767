// Test runner settings: unit tests beside the code, cross-cutting suites in test/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Minutes of real time each: `npm run test:long`, `npm run test:container` and `npm run test:upgrade` (their own configs).
    exclude: ['test/long/**', 'test/container/**', 'test/upgrade/**', '**/node_modules/**'],
    setupFiles: ['test/support/setup.ts'],
    // Vitest runs cores - 1 files at once: one, on a two-core machine, while most suites wait on sockets
    // and timers (deadlines of 5-14 s against misbehaving servers). Two keep both cores busy.
    maxWorkers: 2,
    // A worker runs its files one after another in one module registry, instead of importing Fastify, the
    // MCP SDK and the app's graph afresh for each file: that import was a third of the run. Tests share
    // no module state (each starts its own app, database and servers; none mocks a module or edits
    // process.env), and the OpenAPI check wraps fetch once (test/support/openapi-contract.ts).
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
