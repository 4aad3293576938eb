import { eq } from 'drizzle-orm';
import type { Db } from '../database';
import { promised } from '../promised';
import { apps } from '../../schema';
import type { AppRow, AppsRepository } from '../../../modules/apps/apps.repository';

function appsStatements(db: Db) {
  // Every authenticated request looks its app up: a plain prepared statement (drizzle's prepared
  // query maps each row through its column list, several times the cost of the lookup itself).
  const byId = db.$client.query<AppRow, [string]>(
    `SELECT id, name, plan, app_secret_hash AS appSecretHash, app_secret_sealed AS appSecretSealed, signing_secret_sealed AS signingSecretSealed,
            apns_sealed AS apnsSealed, fcm_sealed AS fcmSealed, apns_paused_reason AS apnsPausedReason, fcm_paused_reason AS fcmPausedReason,
            source, created_at AS createdAt, updated_at AS updatedAt FROM apps WHERE id = ?`,
  );
  const apnsConfigured = db.$client.query<{ yes: number }, [string]>('SELECT apns_sealed IS NOT NULL AS yes FROM apps WHERE id = ?');
  return {
    find: (id: string): AppRow | undefined => byId.get(id) ?? undefined,
    list: (): AppRow[] => db.select().from(apps).orderBy(apps.createdAt, apps.id).all(),
    insert: (row: AppRow) => db.insert(apps).values(row).run(),
    update: (id: string, patch: Partial<AppRow>) => db.update(apps).set(patch).where(eq(apps.id, id)).run(),
    /** Whether the app delivers to APNs for real (has credentials) rather than to the simulator. */
    hasApnsCredentials: (id: string): boolean => apnsConfigured.get(id)?.yes === 1,
    remove: (id: string) => db.delete(apps).where(eq(apps.id, id)).returning({ id: apps.id }).all().length > 0,
  };
}

/** The repository over appsStatements: every method returns a Promise. */
export const appsRepository = (db: Db): AppsRepository => promised(appsStatements(db));
