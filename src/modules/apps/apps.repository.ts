import type { apps } from './apps.tables';

export type AppRow = typeof apps.$inferSelect;

/** The apps repository: what every database implements (one implementation for both databases: src/db/repositories/apps.ts). */
export interface AppsRepository {
  find(id: string): Promise<AppRow | undefined>;
  list(): Promise<AppRow[]>;
  insert(row: AppRow): Promise<void>;
  update(id: string, patch: Partial<AppRow>): Promise<void>;
  /** Whether the app delivers to APNs for real (has credentials) rather than to the simulator. */
  hasApnsCredentials(id: string): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}
