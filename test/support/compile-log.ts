import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expect } from 'vitest';

// Compiling pipelines is what a GPU test costs on a software adapter (seconds each on lavapipe
// with a cold shader cache, milliseconds once compiled). With WGPRIM_TEST_COMPILE_LOG=<file>,
// every pipeline a test device compiles is appended there as `file<TAB>test<TAB>ms<TAB>label`,
// so a test that compiles a new pipeline for every check shows up (sum the ms by test).

const LOG = process.env.WGPRIM_TEST_COMPILE_LOG;

/** Logs this device's pipeline compiles when WGPRIM_TEST_COMPILE_LOG names a file; else nothing. */
export function logCompiles(device: GPUDevice): void {
  if (!LOG) return;
  const compile = device.createComputePipelineAsync.bind(device);
  device.createComputePipelineAsync = async (descriptor: GPUComputePipelineDescriptor): Promise<GPUComputePipeline> => {
    const { currentTestName, testPath } = expect.getState();
    const start = performance.now();
    try {
      return await compile(descriptor);
    } finally {
      const ms = (performance.now() - start).toFixed(0);
      appendFileSync(LOG, `${basename(testPath ?? '?')}\t${currentTestName ?? '(set-up)'}\t${ms}\t${descriptor.label ?? ''}\n`);
    }
  };
}
