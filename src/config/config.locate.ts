/**
 * Finds where a key path stands in a TOML text, so that errors about valid TOML with a wrong key or
 * type can still point at `line:column`. It follows table headers (`[a.b]`, `[[apps]]` with their
 * index) and `key =` lines, including dotted keys; it does not need to understand values.
 */
export type KeyPath = (string | number)[];

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY = /^(\s*)((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=/;

const splitKey = (raw: string): string[] => raw.split('.').map((p) => p.trim().replace(/^["']|["']$/g, ''));

export function locateKey(text: string, path: KeyPath): { line: number; column: number } | undefined {
  const lines = text.split(/\r?\n/);
  const arrayCounts = new Map<string, number>();
  let table: KeyPath = [];
  let best: { line: number; column: number } | undefined;
  const same = (a: KeyPath, n: number) => a.length >= n && path.slice(0, n).every((p, i) => String(a[i]) === String(p));

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const header = HEADER.exec(line);
    if (header) {
      const names = splitKey(header[2] ?? '');
      const resolved: KeyPath = [];
      for (let n = 0; n < names.length; n++) {
        resolved.push(names[n]!);
        const key = resolved.filter((p) => typeof p === 'string').join('.');
        const isLast = n === names.length - 1;
        if (header[1] === '[[' && isLast) arrayCounts.set(key, (arrayCounts.get(key) ?? -1) + 1);
        if (arrayCounts.has(key)) resolved.push(arrayCounts.get(key)!);
      }
      table = resolved;
      const column = line.indexOf('[') + 1;
      if (same(table, Math.min(table.length, path.length)) && table.length <= path.length) best = { line: i + 1, column };
      continue;
    }
    const key = KEY.exec(line);
    if (!key) continue;
    const full = [...table, ...splitKey(key[2] ?? '')];
    const n = Math.min(full.length, path.length);
    if (same(full, n) && full.length >= path.length) return { line: i + 1, column: (key[1]?.length ?? 0) + 1 };
  }
  return best;
}
