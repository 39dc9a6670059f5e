import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files that run on lavapipe at its default width, 8 lanes (256 bits: subgroup size 8, the
// adapter the package's lavapipe tables were tuned on). They assert what that adapter selects:
// its tuned rows, and heuristics sized for 8-wide subgroups. Every other file runs at 4 lanes
// (128 bits, subgroup size 4, as SwiftShader in the browser test): lavapipe then compiles a
// pipeline in about half the time (scattered loads and stores are emitted lane by lane), and
// compiling is what a GPU test costs here. Both subgroup sizes are exercised on every run.
const EIGHT_LANES = [
  'test/bench.test.ts',
  'test/tune-threshold.test.ts',
  'test/tables.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Generous: a test's first calls compile its pipelines cold on lavapipe (seconds each), and a
    // slower CI machine must not turn that into a failure; a hung test still fails.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Dawn's polling throttled (its spin took a core: test/support/dawn-poll.ts).
    setupFiles: ['test/support/dawn-poll.ts'],
    // Test files side by side, one per core (at most 4): what dominates them is compiling
    // pipelines, which takes one thread each. On 2 cores three GPU test files took 81 s side by
    // side against 118 s one after the other.
    fileParallelism: true,
    maxWorkers: Math.min(4, Math.max(1, os.availableParallelism())),
    // The two widths as projects; distinct group orders run them one after the other (projects
    // of one group would run side by side, each with its own workers).
    projects: [
      {
        extends: true,
        test: { name: 'lavapipe-4-lanes', include: ['test/**/*.test.ts'], exclude: EIGHT_LANES, env: { LP_NATIVE_VECTOR_WIDTH: '128' }, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'lavapipe-8-lanes', include: EIGHT_LANES, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
