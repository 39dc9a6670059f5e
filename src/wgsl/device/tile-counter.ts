/**
 * The tile counter: a single-pass kernel takes its tile number from an atomic ticket in
 * launch order (word `word` of `state`, zero before the launch), not from its workgroup id, so
 * every tile a look-back waits on belongs to a workgroup that has already started. WGSL
 * expression, for one invocation of the workgroup to evaluate and share.
 */
export const tileTicket = (state: string, word: string): string => `atomicAdd(&${state}[${word}], 1u)`;

/** Statements giving the workgroup `tile` from the counter through the workgroup u32 `shared`. */
export function takeTile(state: string, word: string, shared = 'sh_tile'): string {
  return `
    if (lid == 0u) { ${shared} = ${tileTicket(state, word)}; }
    let tile = workgroupUniformLoad(&${shared});`;
}
