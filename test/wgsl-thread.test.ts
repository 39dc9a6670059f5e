// WGSL thread-scope building blocks (src/wgsl/thread), each in a harness kernel against a CPU reference.
import { describeBlocks } from './support/blocks.js';

describeBlocks('thread');
