import { type DeviceContext } from '../runtime/context.js';
import { fail } from '../runtime/errors.js';
import { type TypeInfo } from '../wgsl/types.js';

/** The launch shape every algorithm's config has. */
export interface LaunchShape {
  /** Invocations per workgroup: a multiple of 32. */
  readonly workgroupSize: number;
  /** Elements each invocation handles per tile: a multiple of 4 (one quad = one 16-byte load for 32-bit types). */
  readonly itemsPerThread: number;
}

/** A call's argument must be an object: a typed error naming the fields it takes otherwise. */
export function checkArgs(what: string, args: unknown, fields: string): asserts args is object {
  if (!args || typeof args !== 'object') fail('invalid-argument', `${what} needs an argument object { ${fields} }`);
}

export const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** Why this launch shape cannot run on this device, or undefined. */
export function launchShapeProblem(ctx: DeviceContext, c: LaunchShape): string | undefined {
  // Multiples of 32 (CUB's SM90 scan uses 192 invocations); algorithms that need a power of two say so.
  if (!Number.isInteger(c.workgroupSize) || c.workgroupSize < 32 || c.workgroupSize % 32 !== 0) {
    return `workgroupSize ${c.workgroupSize} is not a multiple of 32 (>= 32)`;
  }
  if (c.workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup || c.workgroupSize > ctx.limits.maxComputeWorkgroupSizeX) {
    return `workgroupSize ${c.workgroupSize} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (!Number.isInteger(c.itemsPerThread) || c.itemsPerThread < 4 || c.itemsPerThread > 64 || c.itemsPerThread % 4 !== 0) {
    return `itemsPerThread ${c.itemsPerThread} is not a multiple of 4 in [4, 64]`;
  }
  return undefined;
}

/** Why a subgroup-based workgroup method cannot run here, or undefined. */
export function subgroupProblem(ctx: DeviceContext, workgroupSize: number): string | undefined {
  if (!ctx.hasSubgroups) return 'the device was created without the "subgroups" feature';
  if (workgroupSize % ctx.target.subgroupMaxSize !== 0) {
    return `workgroupSize ${workgroupSize} is not a multiple of the adapter's largest subgroup size ${ctx.target.subgroupMaxSize}`;
  }
  return undefined;
}

export function workgroupMemoryProblem(ctx: DeviceContext, bytes: number): string | undefined {
  const max = ctx.limits.maxComputeWorkgroupStorageSize;
  return bytes > max ? `needs ${bytes} bytes of workgroup memory, over this device's ${max}` : undefined;
}



/** The single-pass scan shape scan, the compaction engine and the by-key engine share. */
export interface SinglePassScanShape extends LaunchShape {
  readonly lookback: 'decoupled' | 'reduce-then-scan';
  readonly workgroupScan: 'subgroup' | 'shared';
}

/**
 * Why a single-pass scan shape cannot run here, or undefined: its methods, launch shape and
 * subgroups, then the workgroup memory of its totals' scan (`totalBytes` each, two more, and
 * `extraBytes`), with as many totals as subgroups of `subgroupMinSize` or invocations.
 */
export function singlePassScanProblem(ctx: DeviceContext, c: SinglePassScanShape, totalBytes: number, extraBytes: number,
  subgroupMinSize = ctx.target.subgroupMinSize): string | undefined {
  if (c.lookback !== 'decoupled' && c.lookback !== 'reduce-then-scan') return `unknown lookback "${String(c.lookback)}"`;
  if (c.workgroupScan !== 'subgroup' && c.workgroupScan !== 'shared') return `unknown workgroupScan "${String(c.workgroupScan)}"`;
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  if (c.workgroupScan === 'subgroup') {
    const sg = subgroupProblem(ctx, c.workgroupSize);
    if (sg) return sg;
  }
  const totals = c.workgroupScan === 'subgroup' ? c.workgroupSize / subgroupMinSize : c.workgroupSize;
  return workgroupMemoryProblem(ctx, (totals + 2) * totalBytes + extraBytes);
}
