// WGSL device-scope building blocks (src/wgsl/device), each in a harness kernel against a CPU reference.
import { describeBlocks } from './support/blocks.js';

describeBlocks('device');
