// Vitest set-up file (every test worker): dawn.node polls at most once a millisecond
// (src/node/poll.ts). Its spin took 40% of the CPU time of a test file here (scan: 85 s of CPU
// for 50 s of wall time, 51 s with this); the pipeline compiles that dominate these tests take one
// thread each, so without the spin two test files fit the two cores of a CI machine side by side
// (vitest.config.ts).
import { throttleDawnPolling } from '../../src/node/poll.js';

throttleDawnPolling();
