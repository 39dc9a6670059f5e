/**
 * WGSL statements that give each subgroup a dense id `sgid` in [0, workgroup size / subgroup
 * size), without assuming how invocations are packed into subgroups. Needs the workgroup
 * atomic<u32> `counter` (default `sg_counter`), zero at workgroup start.
 */
export const subgroupId = (counter = 'sg_counter'): string => `
  var sg_ticket = 0u;
  if (subgroupElect()) { sg_ticket = atomicAdd(&${counter}, 1u); }
  let sgid = subgroupBroadcastFirst(sg_ticket);`;
export const SUBGROUP_ID = subgroupId();

/** Builtins a kernel's `main` takes for subgroup work: this lane and the subgroup's size. */
export const SUBGROUP_BUILTINS = '@builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32';
