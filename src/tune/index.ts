// wgprim/tune: the autotuner, the benchmark runner, Google Benchmark JSON, create-optimization,
// apply-config-improvements, the tuning plan and the kernel profiler. Browser-safe (the CLI and
// `wgprim/node` add files and Dawn); the core (`wgprim`) imports nothing from here.
export { tune, type TuneOptions, type TuneSummary, type TuneGroupSummary, type TuneDecision, type TunedConfigScore } from './runtime.js';
export { createOptimization, renderTableModule, renderTableJson, type CreateOptimizationOptions, type CreateOptimizationResult, type GroupResult } from './create-optimization.js';
export { applyConfigImprovements, classifyImprovement, type ApplyImprovementsInput, type ApplyImprovementsResult, type ImprovementDecision, type ImprovementStatus } from './apply-improvements.js';
export { runCampaign, type GroupTime, type ProgressEvent } from './campaign.js';
export { type SettingsInput, defaultSettings } from './settings.js';
export { benchmarkAlgorithm, releaseBenchmarkBuffers } from '../bench/run.js';
export { gbenchFile, formatName, parseName, entryName, rawEntryName, sizeOfEntryName, type BenchRecord, type GBenchFile } from '../bench/gbench.js';
export {
  KernelProfiler, profileCalls, aggregateProfile, type KernelProfilerOptions, type KernelProfile, type KernelStat, type PassSample, type ProfileOptions, type ProfileResult,
} from '../bench/profile.js';
