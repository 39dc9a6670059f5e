/**
 * Workgroup grid for `n` workgroups. One dimension holds at most `maxPerDim` (65,535 by
 * default); past it the grid goes 2-D, and kernels read their linear id as
 * `wid.x + wid.y * nwg.x` and exit when it is past `n`.
 */
export function gridFor(n: number, maxPerDim: number): [number, number] {
  if (n <= maxPerDim) return [Math.max(n, 1), 1];
  const y = Math.ceil(n / maxPerDim);
  const x = Math.ceil(n / y);
  if (y > maxPerDim) throw new RangeError(`grid of ${n} workgroups exceeds ${maxPerDim}^2`);
  return [x, y];
}

export const ceilDiv = (a: number, b: number): number => Math.floor((a + b - 1) / b);
export const roundUp = (a: number, b: number): number => ceilDiv(a, b) * b;
