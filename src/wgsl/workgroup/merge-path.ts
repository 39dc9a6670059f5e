/**
 * Merge-path partition: of two sorted runs A (`aCount` elements) and B (`bCount`), how many of
 * A's come among the first `diag` of their stable merge (B's element goes after an equal A's).
 * Statements leaving the answer in `var lo` (binary search along the diagonal);
 * `bBeforeA(i, j)` is WGSL that holds when B[j] sorts strictly before A[i].
 */
export function mergePathSearch(diag: string, aCount: string, bCount: string, bBeforeA: (i: string, j: string) => string, pad = '  '): string {
  return `${pad}var lo = select(0u, ${diag} - ${bCount}, ${diag} > ${bCount});
${pad}var hi = min(${diag}, ${aCount});
${pad}while (lo < hi) {
${pad}  let mid = (lo + hi) >> 1u;
${pad}  if (${bBeforeA('mid', `${diag} - 1u - mid`)}) { hi = mid; } else { lo = mid + 1u; }
${pad}}`;
}
