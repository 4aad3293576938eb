import type { apps } from './apps.tables';

export type AppRow = typeof apps.$inferSelect;
