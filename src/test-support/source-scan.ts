import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The text without its comments (`/* … *\/` and whole `//` lines), so that a doc example is not read as a statement. */
export const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Lines as an editor numbers them: the last one counts whether or not a newline ends it. */
export const lineCount = (text: string): number => (text.match(/\n/g)?.length ?? 0) + (text === '' || text.endsWith('\n') ? 0 : 1);

/** The tables the migrations of `folder` (drizzle/) create, rebuilt tables (`__new_x`) under their own name. */
export function migrationTables(folder: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.sql'))) {
    for (const [, name] of readFileSync(join(folder, file), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?[`"]?(\w+)/g)) names.add(name!.replace(/^__new_/, ''));
  }
  return [...names].sort();
}

/**
 * Where a text (comments left out) names one of `tables` in a statement: after FROM, JOIN, INTO,
 * UPDATE or TABLE (SQL keywords upper-case, as the project writes them), or as a quoted name of
 * its own (`n('apps')` for a table name put in later).
 */
export function tableMentions(text: string, tables: string[]): string[] {
  const names = tables.join('|');
  const statement = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+["\`]?(${names})\\b`, 'g');
  const quoted = new RegExp(`['"\`](${names})['"\`]`, 'g');
  const code = withoutComments(text);
  return [...code.matchAll(statement), ...code.matchAll(quoted)].map((m) => m[0]);
}

/**
 * Where a text (comments left out) selects or groups rows by their `reason` text: `reason` compared
 * in a condition (`WHERE|AND|OR reason = …`, `reason IN (…)`) or in a GROUP BY. Setting it
 * (`SET reason = NULL`) and reading it out are not matching by it.
 */
export function reasonMatches(text: string): string[] {
  const code = withoutComments(text);
  const condition = /\b(?:WHERE|AND|OR|ON)\s+(?:\w+\.)?reason\s*(?:=|<>|!=|\bIN\b|\bLIKE\b)[^\n]*/g;
  const grouping = /\bGROUP BY\b[^\n;`]*\breason\b[^\n]*/g;
  return [...code.matchAll(condition), ...code.matchAll(grouping)].map((m) => m[0].trim());
}
