// The default run (`npm test`) checks one representative config per path, each compiled once and
// run on many sizes; `npm run test:sweep` (WGPRIM_TEST_SWEEP=1) adds the exhaustive crosses of
// config options and types, which compile several times as many pipelines (lavapipe takes
// seconds for each with a cold shader cache).
export const SWEEP = process.env.WGPRIM_TEST_SWEEP === '1';

/** Timeout of a sweep test: they compile a pipeline for nearly every check. */
export const SWEEP_TIMEOUT = 60 * 60_000;

/** `all` under the sweep, else `subset` (the representatives the default run keeps). */
export function sweepOr<T>(all: readonly T[], subset: readonly NoInfer<T>[]): readonly T[] {
  return SWEEP ? all : subset;
}

/** Timeout of a test whose cases grow under the sweep (undefined: the configured default). */
export const sweepTimeout: number | undefined = SWEEP ? SWEEP_TIMEOUT : undefined;
