import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Generous: a test's first calls compile its pipelines cold on lavapipe (seconds each), and a
    // slower CI machine must not turn that into a failure; a hung test still fails.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // One test file at a time: lavapipe and SwiftShader each use every CPU core.
    fileParallelism: false,
  },
});
