import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database';
import { apps } from '../../db/schema';

export type AppRow = typeof apps.$inferSelect;

export function appsRepository(db: Db) {
  // Prepared once: every authenticated request looks its app up.
  const byId = db
    .select()
    .from(apps)
    .where(eq(apps.id, sql.placeholder('id')))
    .prepare();
  return {
    find: (id: string): AppRow | undefined => byId.get({ id }),
    list: (): AppRow[] => db.select().from(apps).orderBy(apps.createdAt, apps.id).all(),
    insert: (row: AppRow) => db.insert(apps).values(row).run(),
    update: (id: string, patch: Partial<AppRow>) => db.update(apps).set(patch).where(eq(apps.id, id)).run(),
    remove: (id: string) => db.delete(apps).where(eq(apps.id, id)).returning({ id: apps.id }).all().length > 0,
  };
}

export type AppsRepository = ReturnType<typeof appsRepository>;
