import type { apps } from '../../db/schema';

export type AppRow = typeof apps.$inferSelect;
