/**
 * Two-phase scatter (CUB's ScatterSelectedTwoPhase, rocPRIM's `selected_in_block > BlockSize`):
 * a tile whose items go to a few consecutive runs of global memory (a compaction's selected, a
 * partition's rejected, reduce by key's unique keys) first writes each item to its tile-local
 * rank in a workgroup array, then consecutive invocations copy each run out to consecutive
 * places, so a subgroup's stores fill whole cache lines instead of scattering over many partial
 * ones. A tile that writes no more items than it has invocations gains nothing from the detour
 * (its stores are few, and one round of the copy would cost the barrier anyway), so it writes
 * them directly: `twoPhaseRule`, uniform across the workgroup. Needs `lid` and the constant `WG`.
 */

/** The staging array: `size` items of `T` (WGSL). */
export function stagingDecl(array: string, T: string, size: string): string {
  return `var<workgroup> ${array}: array<${T}, ${size}>;`;
}

/**
 * Declares `two_phase` (CUB's rule: more items to write than invocations); `items` (WGSL u32) is
 * the tile's count of items to write, the same in every invocation.
 */
export const twoPhaseRule = (items: string): string => `let two_phase = ${items} > WG;`;

/**
 * One item's placement: `stage` (WGSL statements writing it into the staging array at its tile
 * rank) in a two-phase tile, else `direct` (writing it to its global place).
 */
export const stageOrStore = (stage: string, direct: string): string => `if (two_phase) { ${stage} } else { ${direct} }`;

/** One run of staged positions [from, to) (WGSL u32) and how position `i` reaches global memory. */
export interface StagedRun {
  readonly from: string;
  readonly to: string;
  /** WGSL storing staged position `i` (its global place is the caller's). */
  readonly store: (i: string) => string;
}

/**
 * After every invocation has placed its items: the barrier (unconditional, so in uniform control
 * flow), then in a two-phase tile each run copied out, position `from + lid` first and every
 * WG-th after it, so consecutive invocations write consecutive places.
 */
export function stagedCopyOut(runs: readonly StagedRun[], pad = '    '): string {
  return `${pad}workgroupBarrier();
${pad}if (two_phase) {
${runs.map((r) => `${pad}  {
${pad}    let run_end = ${r.to};
${pad}    for (var i = ${r.from} + lid; i < run_end; i += WG) {
${pad}      ${r.store('i')}
${pad}    }
${pad}  }`).join('\n')}
${pad}}`;
}
