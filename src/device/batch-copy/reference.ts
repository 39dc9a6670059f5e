// CPU reference and checks of the batch copy: what the tests, the demo and the array level use.

export interface ByteRanges {
  readonly sourceOffsets: ArrayLike<number>;
  readonly destinationOffsets: ArrayLike<number>;
  readonly sizes: ArrayLike<number>;
}

/** `destination` after copying every range from `source` (ranges outside either buffer skipped, as the kernel does). */
export function batchCopyReference(source: Uint8Array, destination: Uint8Array, r: ByteRanges): Uint8Array {
  const out = destination.slice();
  for (let i = 0; i < r.sizes.length; i++) {
    const [s, d, n] = [r.sourceOffsets[i]!, r.destinationOffsets[i]!, r.sizes[i]!];
    if (s + n > source.length || d + n > destination.length) continue;
    out.set(source.subarray(s, s + n), d);
  }
  return out;
}

/** Why these ranges cannot be copied (a range past a buffer's end, overlapping destination ranges), or undefined. */
export function rangesProblem(sourceBytes: number, destinationBytes: number, r: ByteRanges): { code: 'buffer-size' | 'overlap'; message: string } | undefined {
  const n = r.sizes.length;
  for (let i = 0; i < n; i++) {
    const [s, d, size] = [r.sourceOffsets[i]!, r.destinationOffsets[i]!, r.sizes[i]!];
    if (s + size > sourceBytes) return { code: 'buffer-size', message: `range ${i} reads source bytes [${s}, ${s + size}) of ${sourceBytes}` };
    if (d + size > destinationBytes) return { code: 'buffer-size', message: `range ${i} writes destination bytes [${d}, ${d + size}) of ${destinationBytes}` };
  }
  const order = Array.from({ length: n }, (_, i) => i).filter((i) => r.sizes[i]! > 0).sort((a, b) => r.destinationOffsets[a]! - r.destinationOffsets[b]!);
  for (let k = 1; k < order.length; k++) {
    const [a, b] = [order[k - 1]!, order[k]!];
    if (r.destinationOffsets[a]! + r.sizes[a]! > r.destinationOffsets[b]!) return { code: 'overlap', message: `destination ranges ${a} and ${b} overlap` };
  }
  return undefined;
}
