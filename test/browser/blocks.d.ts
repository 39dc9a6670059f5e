// Types of blocks.js for the Node tests that import it.
export type BlockLib = Record<string, Record<string, unknown>>;
export interface BlockCase { scope: string; name: string; f16?: boolean; run(lib: BlockLib, device: GPUDevice): Promise<string[]> }
export const BLOCK_CASES: BlockCase[];
export function loadBlocks(importer: (path: string) => Promise<Record<string, unknown>>): Promise<BlockLib>;
export function runBlockCases(lib: BlockLib, device: GPUDevice, scope?: string): Promise<{ name: string; failures: string[] }[]>;
