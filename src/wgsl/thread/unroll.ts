/**
 * `count` copies of `body`, each in its own block with `name` bound to a constant index.
 * Per-thread arrays indexed this way stay in registers: some compilers leave a loop over
 * them rolled and move the arrays to local memory.
 */
export function unroll(count: number, name: string, body: string): string {
  return Array.from({ length: count }, (_, i) => `{ const ${name} = ${i}u;\n${body}\n}`).join('\n');
}

/** `text` with every line prefixed by `pad`. */
export const indent = (text: string, pad: string): string => text.split('\n').map((l) => pad + l).join('\n');
