#!/usr/bin/env bun
/**
 * Counts the SQL statements still written twice across the two databases (issue 35's done-when: at
 * most 10 statements equal or nearly equal across the dialects). Statements are:
 * - every module-level `statement(…)` / `oneOff(…)` in src, rendered for SQLite and for PostgreSQL
 *   (captured as their modules load: src/db/sql/statement.ts is loaded with a recorder);
 * - the raw SQL literals left in src/db/sqlite, src/db/postgres and src/coordination (strings and
 *   templates starting with SELECT, INSERT, UPDATE, DELETE, WITH, CREATE…; a `${NAME}` naming a
 *   string constant of the same file is filled in, any other `${…}` becomes one token).
 * Texts are compared after normalising placeholders (`?`, `?n`, `$n`), double quotes, casts
 * (`::type`), case and whitespace. Two statements are twins when they come from different
 * dialects (raw SQLite and raw PostgreSQL, or a shared statement and a raw one; two shared ones
 * are each written once), begin with the same word, name the same tables, and their token
 * sequences are equal or within an edit distance of `threshold` times the longer one's length
 * (nearly equal: an idiom apart, such as json_each(?) and = ANY(?), or an extra condition). Twins are paired one to one,
 * closest first; the count is the number of pairs.
 *   bun scripts/sql-twins.ts [--threshold 0.15] [--json]
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { threshold: { type: 'string', default: '0.15' }, json: { type: 'boolean', default: false } } });
const THRESHOLD = Number(values.threshold);
const ROOT = resolve(import.meta.dir, '..');
const RAW_DIRS = ['src/db/sqlite', 'src/db/postgres', 'src/coordination'];

type Side = 'shared' | 'sqlite' | 'postgres';
interface Found {
  side: Side;
  at: string;
  /** Normalised token sequences: for a shared statement one per dialect, for a raw one its own. */
  tokens: { sqlite?: string[]; postgres?: string[] };
  text: string;
}

// ---- Shared statements: load every module that defines them, with statement() recording each call.
interface Recorded {
  statement: { text: unknown };
  at: string;
}
const recorded: Recorded[] = ((globalThis as Record<string, unknown>).__sqlTwins = []) as Recorded[];
Bun.plugin({
  name: 'record statements',
  setup(build) {
    build.onLoad({ filter: /src\/db\/sql\/statement\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('export function statement<')) throw new Error('sql-twins: src/db/sql/statement.ts no longer exports function statement<…>');
      const contents = `${source.replace('export function statement<', 'function statementUnrecorded<')}
export function statement(text: any, shape?: any) {
  const s = statementUnrecorded(text, shape);
  const frame = (new Error().stack ?? '').split('\\n').map((l) => /(\\/[^\\s()]+\\.ts):(\\d+):\\d+/.exec(l)).find((m) => m && !m[1].endsWith('/sql/statement.ts'));
  globalThis.__sqlTwins.push({ statement: s, at: frame ? frame[1] + ':' + frame[2] : 'unknown' });
  return s;
}`;
      return { contents, loader: 'ts' };
    });
  },
});
const found: Found[] = [];
const sharedLines = new Map<string, number[]>();
// Before the data layer core (src/db/sql) every statement is raw.
if (await Bun.file(resolve(ROOT, 'src/db/sql/statement.ts')).exists()) await loadShared();

/** Imports every module of src that defines statements; records each module-level one, rendered for both dialects. */
async function loadShared(): Promise<void> {
  const { render } = await import('../src/db/sql/statement');
  const { sqliteDialect, postgresDialect } = await import('../src/db/sql/dialect');
  const definers = [...new Bun.Glob('src/**/*.ts').scanSync({ cwd: ROOT })]
    .filter((f) => !f.endsWith('.test.ts') && !f.startsWith('src/db/sql/'))
    .filter((f) => /\b(statement|oneOff)(<[^>]*>)?\(/.test(readFileSync(resolve(ROOT, f), 'utf8')));
  for (const f of definers) await import(resolve(ROOT, f));
  for (const r of recorded.splice(0)) {
    const s = r.statement as Parameters<typeof render>[0];
    const postgres = render(s, postgresDialect);
    const [file, line] = [relative(ROOT, r.at.replace(/:\d+$/, '')), Number(r.at.match(/:(\d+)$/)?.[1] ?? 0)];
    found.push({ side: 'shared', at: `${file}:${line}`, tokens: { sqlite: tokens(render(s, sqliteDialect)), postgres: tokens(postgres) }, text: postgres });
    sharedLines.set(file, [...(sharedLines.get(file) ?? []), line]);
  }
}

// ---- Raw SQL left in the per-dialect folders.
const STARTS = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|PRAGMA|REPLACE|VACUUM)\b/i;
for (const dir of RAW_DIRS)
  for (const f of new Bun.Glob(`${dir}/**/*.ts`).scanSync({ cwd: ROOT })) {
    if (f.endsWith('.test.ts')) continue;
    const source = readFileSync(resolve(ROOT, f), 'utf8');
    const literals = scanLiterals(source);
    const constants = new Map<string, string>();
    for (const l of literals) {
      const name = /(?:const|let)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*$/.exec(source.slice(Math.max(0, l.start - 120), l.start))?.[1];
      if (name) constants.set(name, l.parts.map((p) => (typeof p === 'string' ? p : '§')).join(''));
    }
    for (const l of literals) {
      const text = l.parts.map((p) => (typeof p === 'string' ? p : /^\s*[A-Za-z_$][\w$]*\s*$/.test(p.expr) ? (constants.get(p.expr.trim()) ?? '§') : '§')).join('');
      if (!STARTS.test(text) || tokens(text).length < 4) continue;
      const line = source.slice(0, l.start).split('\n').length;
      // A literal that is a statement(…)'s text is counted as that shared statement.
      if ((sharedLines.get(f) ?? []).some((at) => line >= at && line <= at + 3)) continue;
      const side: Side = /\/postgres(\/|\.ts$)/.test(f) ? 'postgres' : /\/sqlite(\/|\.ts$)/.test(f) ? 'sqlite' : /\$\d/.test(text) ? 'postgres' : 'sqlite';
      found.push({ side, at: `${f}:${line}`, tokens: { [side]: tokens(text) }, text });
    }
  }

// ---- Pairs across the dialects, closest first, each statement in one pair at most.
interface Pair {
  a: Found;
  b: Found;
  distance: number;
}
const candidates: Pair[] = [];
for (let i = 0; i < found.length; i++)
  for (let j = i + 1; j < found.length; j++) {
    const [a, b] = [found[i]!, found[j]!];
    if (a.side === b.side) continue;
    // A shared statement is compared in the raw one's dialect; two raw ones each in their own.
    const ta = a.side === 'shared' ? a.tokens[b.side as 'sqlite' | 'postgres'] : a.tokens[a.side];
    const tb = b.side === 'shared' ? b.tokens[a.side as 'sqlite' | 'postgres'] : b.tokens[b.side];
    if (!ta || !tb || ta[0] !== tb[0] || tablesOf(ta) !== tablesOf(tb)) continue;
    const limit = Math.floor(THRESHOLD * Math.max(ta.length, tb.length));
    const distance = editDistance(ta, tb, limit);
    if (distance <= limit) candidates.push({ a, b, distance });
  }
candidates.sort((x, y) => x.distance - y.distance);
const paired = new Set<Found>();
const pairs: Pair[] = [];
for (const c of candidates) {
  if (paired.has(c.a) || paired.has(c.b)) continue;
  paired.add(c.a);
  paired.add(c.b);
  pairs.push(c);
}

const count = (side: Side) => found.filter((f) => f.side === side).length;
const equal = pairs.filter((p) => p.distance === 0).length;
if (values.json) {
  console.log(JSON.stringify({ statements: { shared: count('shared'), sqlite: count('sqlite'), postgres: count('postgres') }, twins: pairs.length, equal, pairs: pairs.map((p) => ({ a: p.a.at, b: p.b.at, distance: p.distance })) }));
} else {
  console.log(`statements: ${count('shared')} written once (module-level statement()), ${count('sqlite')} raw SQLite, ${count('postgres')} raw PostgreSQL`);
  console.log(`twins across the dialects: ${pairs.length} (${equal} equal after normalising, ${pairs.length - equal} nearly equal)`);
  for (const p of pairs) console.log(`  ${p.distance === 0 ? 'equal ' : `near ${String(p.distance).padStart(2)}`}  ${p.a.side}:${p.a.at}  ~  ${p.b.side}:${p.b.at}\n          ${p.a.text.replace(/\s+/g, ' ').trim().slice(0, 140)}`);
}

/**
 * Lower-case tokens of a statement with placeholders, double quotes and casts normalised away, and
 * the idioms that Dialect renders per database (list membership, IS, greatest/least, INSERT OR)
 * written one way.
 */
function tokens(sql: string): string[] {
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\$\d+|\?\d*/g, '?')
    .replace(/::\s*[a-z_][a-z0-9_]*(\s*\[\])?/gi, '')
    .replace(/"/g, '')
    .toLowerCase()
    // The idioms Dialect renders per database, written one way (SQLite's).
    .replace(/\bin\s*\(\s*select\s+value\s+from\s+json_each\s*\(\s*\?\s*\)\s*\)/g, '= any(?)')
    .replace(/\bis\s+not\s+distinct\s+from\b/g, 'is')
    .replace(/\bgreatest\s*\(/g, 'max(')
    .replace(/\bleast\s*\(/g, 'min(')
    .replace(/\binsert\s+or\s+(replace|ignore)\b/g, 'insert');
  return text.match(/'(?:[^']|'')*'|[a-z_][a-z0-9_.]*|\d+|§|[^\s]/g) ?? [];
}

/** The tables a statement reads or writes (after FROM, INTO, UPDATE, JOIN; not json_each(…) or unnest(…)), sorted: twins name the same. */
function tablesOf(t: string[]): string {
  const tables = new Set<string>();
  for (let i = 0; i < t.length - 1; i++) if (['from', 'into', 'update', 'join'].includes(t[i]!) && /^[a-z_]/.test(t[i + 1]!) && t[i + 2] !== '(') tables.add(t[i + 1]!);
  return [...tables].sort().join(',');
}

/** Token edit distance, giving up (limit + 1) once every alignment is past `limit`. */
function editDistance(a: string[], b: string[], limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (current[j]! < best) best = current[j]!;
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

type Part = string | { expr: string };
/**
 * The string and template literals of a TypeScript source, each as text parts and `${…}`
 * expressions, skipping comments and regular expressions (a `/` after an operator or bracket).
 */
function scanLiterals(src: string): { start: number; parts: Part[] }[] {
  const out: { start: number; parts: Part[] }[] = [];
  let i = 0;
  let lastSignificant = '';
  const template = (): Part[] => {
    const parts: Part[] = [];
    let chunk = '';
    i++; // the opening backtick
    while (i < src.length && src[i] !== '`') {
      if (src[i] === '\\') {
        chunk += src[i + 1];
        i += 2;
      } else if (src[i] === '$' && src[i + 1] === '{') {
        parts.push(chunk);
        chunk = '';
        i += 2;
        const from = i;
        let depth = 1;
        while (i < src.length && depth > 0) {
          const c = src[i]!;
          if (c === '`') template();
          else if (c === "'" || c === '"') quoted();
          else {
            if (c === '{') depth++;
            else if (c === '}') depth--;
            i++;
          }
        }
        parts.push({ expr: src.slice(from, i - 1) });
      } else chunk += src[i++];
    }
    i++; // the closing backtick
    parts.push(chunk);
    return parts;
  };
  const quoted = (): string => {
    const q = src[i++];
    let text = '';
    while (i < src.length && src[i] !== q && src[i] !== '\n') {
      if (src[i] === '\\') {
        text += src[i + 1];
        i += 2;
      } else text += src[i++];
    }
    i++;
    return text;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i + 2) === -1 ? src.length : src.indexOf('*/', i + 2) + 2;
    else if (c === '/' && (lastSignificant === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant))) {
      // A regular expression: up to its closing slash outside a character class.
      let inClass = false;
      for (i++; i < src.length && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        else if (src[i] === '/' && !inClass) break;
      }
      i++;
      lastSignificant = '/';
    } else if (c === '`') {
      const start = i;
      out.push({ start, parts: template() });
      lastSignificant = '`';
    } else if (c === "'" || c === '"') {
      const start = i;
      out.push({ start, parts: [quoted()] });
      lastSignificant = c;
    } else {
      if (!/\s/.test(c)) lastSignificant = /[\w$)\]]/.test(c) ? 'x' : c;
      i++;
    }
  }
  return out;
}
