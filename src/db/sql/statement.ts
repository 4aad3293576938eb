import type { Dialect } from './dialect';

/**
 * One SQL statement, written once for both databases: its text (or a function of the dialect for
 * the few fragments that differ), and how its rows are read back. Define statements at module level
 * so each is rendered once per dialect and, on SQLite, prepared once per connection.
 * @example const byId = statement<AppRow>(`SELECT id, name, created_at AS "createdAt" FROM apps WHERE id = $1`, { numbers: ['createdAt'] });
 */
export interface Statement<Row = Record<string, unknown>> {
  readonly text: string | ((d: Dialect) => string);
  /**
   * Fields that are numbers: PostgreSQL hands int8 (times in ms, ids, counts) to JavaScript as
   * strings, since not every int8 fits a JS number; every value Islet keeps does.
   */
  readonly numbers: readonly string[];
  /** Fields that are booleans: SQLite answers 0 and 1. */
  readonly booleans: readonly string[];
  /** Rendered text per dialect, filled on first use. */
  readonly rendered: Partial<Record<Dialect['name'], string>>;
  /**
   * False for a statement built at run time (a filter, a multi-row VALUES): SQLite does not keep it
   * prepared for the connection's lifetime.
   */
  readonly prepared: boolean;
  /** Only a type witness for `Row`. */
  readonly row?: Row;
}

export interface RowShape {
  numbers?: readonly string[];
  booleans?: readonly string[];
}

export function statement<Row = Record<string, unknown>>(text: string | ((d: Dialect) => string), shape: RowShape = {}): Statement<Row> {
  return { text, numbers: shape.numbers ?? [], booleans: shape.booleans ?? [], rendered: {}, prepared: true };
}

/**
 * A statement built at run time (a list's filter, a multi-row VALUES): rendered on every use and
 * not kept prepared; hot paths use module-level `statement`s.
 * @example await sql.all(oneOff<AuditRow>(`SELECT … ${where} LIMIT $${n + 1}`, { numbers: ['id'] }), params);
 */
export function oneOff<Row = Record<string, unknown>>(text: string | ((d: Dialect) => string), shape: RowShape = {}): Statement<Row> {
  return { ...statement<Row>(text, shape), prepared: false };
}

/** The statement's text for `dialect`: its fragments filled in, and on SQLite `$n` read as `?n`. */
export function render(s: Statement<unknown>, dialect: Dialect): string {
  let text = s.rendered[dialect.name];
  if (text === undefined) {
    text = renderText(s.text, dialect);
    (s.rendered as Record<string, string>)[dialect.name] = text;
  }
  return text;
}

/** Renders a statement's text, or a one-off text built at run time (a filter, a multi-row VALUES). */
export function renderText(text: string | ((d: Dialect) => string), dialect: Dialect): string {
  const t = typeof text === 'string' ? text : text(dialect);
  return dialect.name === 'sqlite' ? t.replace(PLACEHOLDER, '?$1') : t;
}

const PLACEHOLDER = /\$(\d+)/g;

/** `($from, …)` groups of `width` numbered placeholders for a multi-row VALUES, starting after `offset`. */
export function valuesList(rows: number, width: number, offset = 0, template?: (placeholders: string[]) => string): string {
  const groups: string[] = [];
  for (let r = 0; r < rows; r++) {
    const p = Array.from({ length: width }, (_, c) => `$${offset + r * width + c + 1}`);
    groups.push(template ? template(p) : `(${p.join(', ')})`);
  }
  return groups.join(', ');
}
