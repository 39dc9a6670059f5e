import { byKeyTable } from '../scan-by-key/table.js';
import { reduceByKeyTuned } from './tuned/reduce-by-key.js';
import { runLengthEncodeTuned } from './tuned/run-length-encode.js';
import { runLengthEncodeNonTrivialRunsTuned } from './tuned/run-length-encode-non-trivial-runs.js';

/**
 * rocPRIM's three tables: reduce by key (key class and value size), and run-length encode and
 * its non-trivial runs each on their own rows (their counts are u32 values), though both run the
 * by-key engine reduce by key runs.
 */
export const reduceByKeyTable = byKeyTable('reduceByKey', 'reduce-by-key', 'reduce-by-key', reduceByKeyTuned, true);
export const runLengthEncodeTable = byKeyTable('runLengthEncode', 'reduce-by-key', 'run-length-encode', runLengthEncodeTuned, false);
export const runLengthEncodeNonTrivialRunsTable = byKeyTable('runLengthEncodeNonTrivialRuns', 'reduce-by-key', 'run-length-encode-non-trivial-runs', runLengthEncodeNonTrivialRunsTuned, false);
