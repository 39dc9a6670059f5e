// Parsers for CLI option values.
import { ELEMENT_TYPES, type ElementType } from '../wgsl/types.js';

/** A count: `1048576`, `2^20`, `1e6`, `4Mi`, `64Ki`, `1Gi`. */
export function parseCount(text: string): number {
  const s = text.trim();
  let n: number;
  let m: RegExpExecArray | null;
  if ((m = /^2\^(\d+)$/.exec(s))) n = 2 ** Number(m[1]);
  else if ((m = /^(\d+)(Ki|Mi|Gi)$/.exec(s))) n = Number(m[1]) * { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m[2] as 'Ki' | 'Mi' | 'Gi'];
  else if (/^\d+(\.\d+)?(e\d+)?$/i.test(s)) n = Number(s);
  else n = NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`"${text}" is not a positive count (examples: 1048576, 2^20, 1e6, 4Mi)`);
  return n;
}

export function parseList<T>(text: string, item: (s: string) => T): T[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map(item);
}

export function parseType(text: string): ElementType {
  if (!(ELEMENT_TYPES as readonly string[]).includes(text)) throw new Error(`unknown type "${text}": use ${ELEMENT_TYPES.join(', ')}`);
  return text as ElementType;
}

export function parseInteger(name: string, min: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got "${text}"`);
    return n;
  };
}

/** `2^k` for powers of two, else the plain number: how sizes print in tables. */
export function formatCount(n: number): string {
  return Number.isInteger(Math.log2(n)) && n >= 1024 ? `2^${Math.log2(n)}` : String(n);
}
