import type { Dialect } from './dialect';

/**
 * Fragments that differ per database beyond Dialect's, each used by a statement or two (the
 * console's delivery search): kept here so a statement is still written once.
 */

/** The text of the top-level field `key` of the JSON text `expr` (null when absent). */
export const jsonField = (d: Dialect, expr: string, key: string): string =>
  d.name === 'postgres' ? `(${expr})::json->>'${key}'` : `json_extract(${expr}, '$.${key}')`;

/**
 * `needle` occurs in `haystack` as a plain substring (no LIKE wildcards: % and _ are literal):
 * SQLite's `instr`, PostgreSQL's `strpos`.
 */
export const contains = (d: Dialect, haystack: string, needle: string): string =>
  d.name === 'postgres' ? `strpos(${haystack}, ${needle}) > 0` : `instr(${haystack}, ${needle}) > 0`;

/**
 * A SQLite planner hint naming the index to read `table` through (nothing on PostgreSQL, whose
 * planner has statistics): SQLite without ANALYZE may pick a worse index.
 */
export const indexedBy = (d: Dialect, index: string): string => (d.name === 'sqlite' ? ` INDEXED BY ${index}` : '');
