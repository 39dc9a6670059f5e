import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One test file at a time: lavapipe and SwiftShader each use every CPU core.
    fileParallelism: false,
  },
});
