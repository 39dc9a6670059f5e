/**
 * Reduce-then-scan, for devices without forward progress between workgroups (no look-back can
 * spin on a predecessor that may never run): a first pass writes each tile's aggregate to
 * `partials` (`partials-out`), one workgroup scans them walking the tiles with a running carry
 * (`carry`, which also serves small inputs in one pass), and a last pass reads each tile's
 * prefix back (`partials-in`). These are the per-mode pieces of a tile kernel: how a workgroup
 * finds its tile and where the tile's prefix comes from (`agg` is its aggregate).
 */
export type ReduceThenScanPass = 'partials-out' | 'partials-in' | 'carry';

/** The `partials` binding of a pass that has one. */
export function partialsDecl(pass: ReduceThenScanPass, binding: number, T: string): string {
  return pass === 'carry' ? '' : `@group(0) @binding(${binding}) var<storage, ${pass === 'partials-out' ? 'read_write' : 'read'}> partials: array<${T}>;`;
}

/** Statements giving the workgroup `tile` (partials passes: from its id; carry: the caller's loop). */
export function reduceThenScanTile(pass: ReduceThenScanPass): string {
  return pass === 'carry' ? '' : `
    let tile = wid.x + wid.y * nwg.x;
    if (tile >= P.num_tiles) { return; }`;
}

/** Statements that publish `agg` and (but for partials-out) declare `tile_prefix`. */
export function reduceThenScanPrefix(pass: ReduceThenScanPass): string {
  switch (pass) {
    case 'partials-out': return `
    if (lid == 0u) { partials[tile] = agg; }`;
    case 'partials-in': return `
    let tile_prefix = partials[tile];`;
    case 'carry': return `
    let tile_prefix = carry;
    carry = op(carry, agg);`;
  }
}
