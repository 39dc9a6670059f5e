#!/usr/bin/env bash
# One H200 call: correctness at 2^24..2^28, then config sweeps. Run through .device/run.sh.
set -uo pipefail
node scripts/device-sweep.mjs --check 24,28
node scripts/device-sweep.mjs --sweep scan --sizes 28,24 --configs '[{},
 {"workgroupSize":256,"itemsPerThread":12},{"workgroupSize":256,"itemsPerThread":20},{"workgroupSize":256,"itemsPerThread":24},{"workgroupSize":256,"itemsPerThread":32},
 {"workgroupSize":128,"itemsPerThread":16},{"workgroupSize":128,"itemsPerThread":24},{"workgroupSize":512,"itemsPerThread":16}]'
node scripts/device-sweep.mjs --sweep scan --sizes 28 --type f32 --configs '[{},{"itemsPerThread":24}]'
node scripts/device-sweep.mjs --sweep scan --sizes 27 --type u64 --configs '[{},{"itemsPerThread":12}]'
