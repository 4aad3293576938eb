import { beforeAll, describe, expect, test } from 'bun:test';
import { count, eq, sql } from 'drizzle-orm';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { SQL } from 'bun';
import { drizzle } from 'drizzle-orm/bun-sql';
import { clientOptions } from './connection';
import { migratePostgres } from './migrate';
import { appsPg as apps } from '../../modules/apps/apps.tables';
import { auditLogPg as auditLog } from '../../modules/audit/audit.tables';
import { endUsersPg as endUsers } from '../../modules/users/users.tables';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('values read back from PostgreSQL keep their JSON types', () => {
  test('times (bigint past 2^31), identity ids, counts and booleans come back as JS numbers and booleans, not strings', async () => {
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    // drizzle's query builder over the client options Islet uses (the tables' column modes are what is checked).
    const db = drizzle({ client: new SQL(url, clientOptions({ url, poolSize: 2 })) });
    try {
      const now = Date.UTC(2026, 10, 24, 21, 0, 0, 123);
      await db.insert(apps).values({
        id: 'a', name: 'A', plan: 'pro', appSecretHash: 'h', appSecretSealed: 's', signingSecretSealed: 's', source: 'api', createdAt: now, updatedAt: now,
      });
      await db.insert(endUsers).values({ appId: 'a', id: 'u', createdAt: now, lastSeenAt: now });
      const [entry] = await db.insert(auditLog).values({ at: now, actor: 'cli', address: 'local', action: 'app.create', target: 'apps/a', summary: '{}' }).returning();
      const [app] = await db.select().from(apps).where(eq(apps.id, 'a'));
      const [user] = await db.select().from(endUsers);
      const [counted] = await db.select({ n: count() }).from(auditLog);
      const values = { createdAt: app!.createdAt, auditId: entry!.id, tester: user!.tester, count: counted!.n };
      expect(JSON.parse(JSON.stringify(values))).toEqual({ createdAt: now, auditId: 1, tester: false, count: 1 });

      // Raw SQL is where int8 stays a string: map it (or select through the columns above).
      const [raw] = await db.execute<{ at: unknown }>(sql`SELECT at FROM audit_log`);
      expect(typeof raw!.at).toBe('string');
      const [mapped] = await db.select({ at: sql<number>`max(${auditLog.at})`.mapWith(Number) }).from(auditLog);
      expect(mapped!.at).toBe(now);
    } finally {
      await db.$client.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
});
