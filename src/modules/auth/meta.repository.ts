

/** The meta repository: what every database implements (one implementation for both databases: src/db/repositories/meta.ts). */
export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string): Promise<void>;
}
