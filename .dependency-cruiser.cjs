// The layers of wgprim (see docs/architecture in README's guides): checked in `npm test`.
// core (src/ but tune, bench, cli, node) < tuner (src/tune, src/bench: `wgprim/tune`) < wgprim/node, CLI.
const CORE = '^src/(?!tune/|bench/|cli/|node/)';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import circles (a circle closed only by type-only imports, erased at compile time, is not one).', from: {}, to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } } },
    {
      name: 'core-not-to-tuner-cli-node', severity: 'error',
      comment: 'The core runs wherever a GPUDevice exists: it imports nothing from the tuner, the benchmark runner, the CLI or wgprim/node.',
      from: { path: CORE }, to: { path: '^src/(tune|bench|cli|node)/' },
    },
    {
      name: 'core-and-tuner-not-to-node', severity: 'error',
      comment: 'Only wgprim/node and the CLI may import Node built-ins or Dawn (npm webgpu).',
      from: { path: '^src/(?!cli/|node/)' }, to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-and-tuner-not-to-dawn', severity: 'error',
      comment: 'Only wgprim/node and the CLI may import Dawn (npm webgpu).',
      from: { path: '^src/(?!cli/|node/)' }, to: { path: 'node_modules/webgpu/' },
    },
    {
      name: 'tuner-not-to-cli-node', severity: 'error',
      comment: 'The tuner (wgprim/tune) sits below wgprim/node and the CLI.',
      from: { path: '^src/(tune|bench)/' }, to: { path: '^src/(cli|node)/' },
    },
    {
      name: 'errors-at-the-bottom', severity: 'error',
      comment: 'Errors are the bottom layer: runtime/errors.ts imports nothing of wgprim.',
      from: { path: '^src/runtime/errors\\.ts$' }, to: { path: '^src/' },
    },
    { name: 'no-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
