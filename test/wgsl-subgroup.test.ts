// WGSL subgroup-scope building blocks (src/wgsl/subgroup), each in a harness kernel against a CPU reference.
import { describeBlocks } from './support/blocks.js';

describeBlocks('subgroup');
