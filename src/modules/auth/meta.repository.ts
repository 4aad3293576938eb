

/** The meta repository: what every database implements (SQLite's in src/db/sqlite/repositories/meta.ts). */
export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string): Promise<void>;
}
