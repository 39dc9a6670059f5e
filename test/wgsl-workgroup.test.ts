// WGSL workgroup-scope building blocks (src/wgsl/workgroup), each in a harness kernel against a CPU reference.
import { describeBlocks } from './support/blocks.js';

describeBlocks('workgroup');
