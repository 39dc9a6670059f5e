/**
 * Shared-memory histogram: bins in a workgroup array of atomic<u32>, cleared, counted into with
 * atomic adds (contention stays in the workgroup), then flushed to global memory once per
 * workgroup. The loops below stride the bins by invocation.
 */
export interface SharedHistogram {
  /** Workgroup array<atomic<u32>, ...> of the bins. */
  readonly array: string;
  /** WGSL: bins used, this invocation's index, invocations. */
  readonly bins: string;
  readonly index: string;
  readonly stride: string;
}

/** Zeroes the bins (a barrier must follow before counting). */
export function histogramClear(h: SharedHistogram, bin = 'd'): string {
  return `for (var ${bin} = ${h.index}; ${bin} < ${h.bins}; ${bin} += ${h.stride}) { atomicStore(&${h.array}[${bin}], 0u); }`;
}

/** Counts one item into bin `bin` (WGSL u32 below the bin count). */
export const histogramAdd = (h: SharedHistogram, bin: string): string => `atomicAdd(&${h.array}[${bin}], 1u);`;

/** After a barrier: for each bin `d` of this invocation, `emit(d, n)` with its count in `let n`. */
export function histogramFlush(h: SharedHistogram, emit: (bin: string, n: string) => string, bin = 'd', pad = '  '): string {
  return `${pad}for (var ${bin} = ${h.index}; ${bin} < ${h.bins}; ${bin} += ${h.stride}) {
${pad}  let n = atomicLoad(&${h.array}[${bin}]);
${pad}  ${emit(bin, 'n')}
${pad}}`;
}
