import { unroll } from '../thread/unroll.js';

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

export interface SharedRunsMerge {
  /** Workgroup arrays of the keys (and values) holding both runs. */
  readonly keys: string;
  readonly vals?: string;
  /** WGSL: where run A and run B start in them, and their lengths. */
  readonly aBase: string;
  readonly bBase: string;
  readonly na: string;
  readonly nb: string;
  /** WGSL: this invocation's first output position in the merged order (<= na + nb). */
  readonly diag: string;
  /** WGSL: the arrays' length (reads are clamped below it). */
  readonly size: string;
  /** Registers of outputs (a constant). */
  readonly items: number;
  readonly K: string;
  readonly V?: string;
  /** WGSL that holds when key x sorts strictly before key y. */
  readonly less: (x: string, y: string) => string;
  /** Where tile position i lies in the arrays (`blockedIndex`); default: at i. */
  readonly at?: (i: string) => string;
}

/**
 * Where tile position i lies in a workgroup array that invocations also reach blocked (lid *
 * items + k): with items a multiple of 4 (or 2) the blocked accesses of a subgroup fall on a
 * few banks (16 items: 16-way conflicts), so such tiles swap each 32-word row's words by the
 * row number (XOR; a row of 32 aligned positions stays conflict-free and in place, and no
 * memory is added; `tile`, the array's length, a multiple of 32). Odd and other items are
 * nearly conflict-free as they are and stay plain.
 */
export function blockedIndex(items: number, tile: number): (i: string) => string {
  return (items % 4 === 0 || items === 2) && tile % 32 === 0 ? (i) => `((${i}) ^ (((${i}) >> 5u) & 31u))` : (i) => i;
}

/**
 * One invocation's share of a stable merge of two sorted runs in workgroup memory: its start
 * by merge path, then `items` elements merged serially into `ok` (`ov`), heads kept in registers so
 * each output costs one comparison and one read. On equal keys A's element goes first. Each
 * step is branch-free (CUB's serial merge): the lanes of a subgroup take A or B at random, so
 * a branch a side would run both sides' reads one after the other; here every lane reads once,
 * the next head of the side it took (clamped into the arrays: a read past a run's end is never
 * used). Every step runs, also past the invocation's share (those outputs are the caller's to
 * ignore): a guarded step would leave its registers holding either its results or the old ones,
 * the pattern that made guarded loads wait for one another (`stagedTileLoad`). Declares lo, hi,
 * ia, ib, ka, kb, ok, ov in the caller's scope.
 */
export function mergeSharedRuns(o: SharedRunsMerge): string {
  const at = o.at ?? ((i: string): string => i);
  const read = (arr: string, i: string): string => `${arr}[${at(`min(${i}, ${o.size} - 1u)`)}]`;
  const v = (s: string): string => (o.vals ? s : '');
  const steps = Array.from({ length: o.items }, (_, k) => `  {
    let take_a = (ia < ${o.na}) & ((ib >= ${o.nb}) | !(${o.less('kb', 'ka')}));
    let taken = select(${o.bBase} + ib, ${o.aBase} + ia, take_a);
    ok[${k}] = select(kb, ka, take_a);
    ${v(`ov[${k}] = ${read(o.vals ?? '', 'taken')};`)}
    ia += select(0u, 1u, take_a);
    ib += select(1u, 0u, take_a);
    let head = ${read(o.keys, 'taken + 1u')};
    ka = select(ka, head, take_a);
    kb = select(head, kb, take_a);
  }`).join('\n');
  return `${mergePathSearch(o.diag, o.na, o.nb, (i, j) => o.less(`${o.keys}[${at(`${o.bBase} + ${j}`)}]`, `${o.keys}[${at(`${o.aBase} + ${i}`)}]`))}
  var ia = lo;
  var ib = ${o.diag} - lo;
  var ka = ${read(o.keys, `${o.aBase} + ia`)};
  var kb = ${read(o.keys, `${o.bBase} + ib`)};
  var ok: array<${o.K}, ${o.items}>;
  ${v(`var ov: array<${o.V}, ${o.items}>;`)}
${steps}`;
}

/**
 * `mergeSharedRuns`, then each invocation's outputs written back over the runs at `first` + k
 * for k below `count` (WGSL), between barriers: the arrays then hold the merged run. Needs
 * workgroup-uniform control flow.
 */
export function mergeSharedRunsInPlace(o: SharedRunsMerge, first: string, count: string): string {
  const at = o.at ?? ((i: string): string => i);
  return `${mergeSharedRuns(o)}
  workgroupBarrier();
${unroll(o.items, 'k', `  if (k < ${count}) {
    ${o.keys}[${at(`${first} + k`)}] = ok[k];
    ${o.vals ? `${o.vals}[${at(`${first} + k`)}] = ov[k];` : ''}
  }`)}
  workgroupBarrier();`;
}
