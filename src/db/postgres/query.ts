/**
 * What PostgreSQL statements run on: Bun's pool, or one transaction's connection
 * (`sql.begin`). Statements are parameterised (`$1`…), so Bun prepares each once per connection.
 */
export interface Pg {
  unsafe(query: string, values?: unknown[]): PromiseLike<unknown>;
}

type Row = Record<string, unknown>;

/**
 * The rows of a query. Bun returns int8 and numeric as strings (a JS number cannot hold every
 * int8): `numbers` names the fields turned into numbers (times in ms, ids and counts all fit).
 */
export async function all<T>(q: Pg, text: string, params: unknown[] = [], numbers: readonly string[] = []): Promise<T[]> {
  const rows = (await q.unsafe(text, params)) as Row[];
  if (numbers.length === 0) return [...rows] as T[];
  return rows.map((row) => {
    const out: Row = { ...row };
    for (const field of numbers) if (out[field] !== null && out[field] !== undefined) out[field] = Number(out[field]);
    return out as T;
  });
}

/** The first row of a query, or undefined. */
export async function one<T>(q: Pg, text: string, params: unknown[] = [], numbers: readonly string[] = []): Promise<T | undefined> {
  return (await all<T>(q, text, params, numbers))[0];
}

/** Runs a statement; resolves with how many rows it changed. */
export async function run(q: Pg, text: string, params: unknown[] = []): Promise<number> {
  const result = (await q.unsafe(text, params)) as { count?: number | null };
  return Number(result.count ?? 0);
}

/** `$from, $from+1, …` groups of `width` placeholders for a multi-row VALUES. */
export function valuesList(rows: number, width: number, template?: (placeholders: string[]) => string): string {
  const groups: string[] = [];
  for (let r = 0; r < rows; r++) {
    const p = Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`);
    groups.push(template ? template(p) : `(${p.join(', ')})`);
  }
  return groups.join(', ');
}
