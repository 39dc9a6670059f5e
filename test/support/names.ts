// Benchmark names of the registered algorithms, as tests spell them (the runner's benchmarkName by benchmark).
import { benchmarkName } from '../../src/bench/run.js';
import { type ConfigObject } from '../../src/device/spec.js';

const cfg = (c: object): ConfigObject => c as ConfigObject;
export const scanName = (exclusive: boolean, type: string, c: object): string => benchmarkName(exclusive ? 'exclusive_scan' : 'inclusive_scan', type, cfg(c));
export const reduceName = (type: string, c: object): string => benchmarkName('reduce', type, cfg(c));
export const transformName = (type: string, c: object): string => benchmarkName('transform', type, cfg(c));
/** `valueType` `empty` (keys only) or `u32` (pairs). */
export const radixSortName = (type: string, valueType: string, c: object): string => benchmarkName(valueType === 'empty' ? 'radix_sort_keys' : 'radix_sort_pairs', type, cfg(c));
export const radixSortBlockSortName = (type: string, valueType: string, c: object): string => benchmarkName(valueType === 'empty' ? 'radix_sort_block_sort_keys' : 'radix_sort_block_sort_pairs', type, cfg(c));
