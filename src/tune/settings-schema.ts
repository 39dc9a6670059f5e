// The JSON schema of the tuning settings file (`wgprim tune --print-schema`): the data part of
// the settings; custom constraints need a .js/.mjs settings module. Browser-safe.
import { ELEMENT_TYPES } from '../wgsl/types.js';
import { THRESHOLD_SPECS, tunableAlgorithms } from './registry.js';


export function settingsJsonSchema(): Record<string, unknown> {
  const typesSchema = { type: 'array', items: { enum: [...ELEMENT_TYPES] }, minItems: 1, uniqueItems: true };
  const intMin = (min: number): Record<string, unknown> => ({ type: 'integer', minimum: min });
  const constraint = {
    oneOf: [
      { type: 'object', required: ['kind', 'params', 'max'], properties: { kind: { const: 'max-product' }, params: { type: 'array', items: { type: 'string' }, minItems: 1 }, max: { type: 'number' }, types: typesSchema }, additionalProperties: false },
      { type: 'object', required: ['kind', 'param'], properties: { kind: { const: 'range' }, param: { type: 'string' }, min: { type: 'number' }, max: { type: 'number' }, types: typesSchema }, additionalProperties: false },
      { type: 'object', required: ['kind', 'match'], properties: { kind: { const: 'exclude' }, match: { type: 'object' }, types: typesSchema }, additionalProperties: false },
    ],
  };
  const algorithms: Record<string, unknown> = {};
  for (const a of tunableAlgorithms()) {
    const space: Record<string, unknown> = {};
    for (const [k, values] of Object.entries({ ...a.space, ...a.untimed })) {
      space[k] = { type: 'array', minItems: 1, uniqueItems: true, items: typeof values[0] === 'number' ? { type: 'integer', minimum: values.includes(0) ? 0 : 1 } : { enum: [...values] } };
    }
    algorithms[a.name] = {
      type: 'object',
      properties: {
        space: { type: 'object', properties: space, additionalProperties: false },
        types: typesSchema,
        sizes: { type: 'array', items: intMin(1), minItems: 1 },
        benchmarks: { type: 'array', items: { enum: [...a.benchmarks] }, minItems: 1 },
        constraints: { type: 'array', items: constraint },
      },
      additionalProperties: false,
    };
  }
  for (const t of THRESHOLD_SPECS) {
    algorithms[t.stage] = {
      type: 'object',
      properties: {
        space: { type: 'object', maxProperties: 0 },
        types: typesSchema,
        sizes: { type: 'array', items: intMin(1), minItems: 1 },
        benchmarks: { type: 'array', items: { enum: [...t.benchmarks] }, minItems: 1, uniqueItems: true },
      },
      additionalProperties: false,
    };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'wgprim tune settings',
    type: 'object',
    properties: {
      $schema: { type: 'string' },
      version: { const: 1 },
      deviceKind: { enum: ['cpu', 'gpu'] },
      seed: intMin(0),
      warmup: intMin(0),
      warmupMs: { type: 'number', minimum: 0 },
      batches: intMin(1),
      batchSize: { type: 'integer', minimum: 1, maximum: 2048 },
      coldCache: { type: 'boolean' },
      strategy: { enum: ['exhaustive', 'random', 'local', 'auto'] },
      exhaustiveLimit: intMin(1),
      randomSamples: intMin(1),
      localEvaluations: intMin(1),
      budgetSeconds: { type: 'number', exclusiveMinimum: 0 },
      buildConcurrency: intMin(1),
      algorithms: { type: 'object', properties: algorithms, additionalProperties: false },
    },
    additionalProperties: false,
  };
}
