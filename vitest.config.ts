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
    // One test file at a time: lavapipe and SwiftShader each use every CPU core.
    fileParallelism: false,
    // The two widths as projects; distinct group orders run them one after the other (projects
    // of one group would run side by side, fileParallelism being per project).
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
