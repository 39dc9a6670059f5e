// Short forms for tables that must fit a terminal (100 columns): configs abbreviated with their
// benchmark-name fields (`bs:256 ipt:16`), or only what differs from another config; lists
// wrapped. The JSON files hold every config whole. Browser-safe.
import { type ConfigObject } from '../device/spec.js';
import { tableNamed } from '../algorithms.js';

/** The width the tuner's and report's tables keep to. */
export const TERMINAL_COLUMNS = 100;

/** `text`, cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

const abbreviations = (table: string): Readonly<Record<string, string>> => {
  try {
    return tableNamed(table).nameFields;
  } catch {
    return {};
  }
};

/** A config as `bs:256 ipt:16 ...` (the benchmark-name abbreviations), fields in the table's order. */
export function configShort(table: string, config: unknown, max = 40): string {
  const abbr = abbreviations(table);
  const c = config as ConfigObject;
  return clip(Object.keys(c).map((k) => `${abbr[k] ?? k}:${String(c[k])}`).join(' '), max);
}

/** What `config` changes from `base` (`ipt:16 bs:512`), `=` where nothing; cut to `max`. */
export function configChange(table: string, config: unknown, base: unknown, max = 30): string {
  const abbr = abbreviations(table);
  const c = config as ConfigObject;
  const b = (base ?? {}) as ConfigObject;
  const changed = Object.keys(c).filter((k) => c[k] !== b[k]).map((k) => `${abbr[k] ?? k}:${String(c[k])}`);
  return changed.length ? clip(changed.join(' '), max) : '= default';
}

/** A config source without its `tuned:` prefix (`device`, `vendor`, `heuristic`). */
export const shortSource = (source: string): string => source.replace(/^tuned:/, '');

/** `head` then `items` joined by `, `, wrapped at `width` with continuation lines indented by `indent`. */
export function wrapList(head: string, items: readonly string[], indent = 4, width = TERMINAL_COLUMNS): string[] {
  const lines: string[] = [];
  let line = head;
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? ',' : ''}`;
    if (line.length + 1 + piece.length > width && line.trim().length) {
      lines.push(line);
      line = ' '.repeat(indent) + piece;
    } else {
      line += (line.endsWith(' ') || !line.length ? '' : ' ') + piece;
    }
  }
  if (line.trim().length) lines.push(line);
  return lines;
}

/** Rows under a header, columns padded (right-aligned where listed), two spaces apart. */
export function renderColumns(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number> = new Set()): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * Rows whose first cell names a table, as one block per table (its name, then the rows without
 * that cell, indented): the table's name is said once, and the rows keep to the terminal.
 */
export function blocksByFirstColumn(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number> = new Set()): string {
  const right = new Set([...rightAligned].filter((i) => i > 0).map((i) => i - 1));
  const names = [...new Set(rows.map((r) => r[0]!))];
  return names.map((name) => {
    const mine = rows.filter((r) => r[0] === name).map((r) => r.slice(1));
    const text = renderColumns(header.slice(1), mine, right).split('\n').map((l) => `  ${l}`).join('\n');
    return `${name}\n${text}`;
  }).join('\n');
}
