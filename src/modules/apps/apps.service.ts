import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { canonicalTimeZone } from '../../lib/locale';
import { frequencyCap, quietHours, storedFrequencyCap, storedQuietHours, type FrequencyCap, type QuietHours } from '../../lib/delivery-limits';
import { generateSecret, sha256Hex } from '../../lib/secrets';
import type { AppContext } from '../../context';
import type { Tx } from '../../db/store';
import { appChanged } from './app-row-cache';
import type { AppRow } from './apps.types';
import type { ApnsCredentials, FcmCredentials } from './credentials';
import { appsRepository } from './apps.repository';
import { budgetColumns, budgetOf, type LiveActivityBudget } from './live-activity-budget';

export type SecretKind = 'appSecret' | 'signingSecret';

/** Additional data binding each sealed value to its column and app (see SecretBox). */
const purpose = (appId: string, column: string) => `apps.${column}:${appId}`;

export const APP_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$';

/**
 * What else changes, in the transaction `tx` that stores an app's new provider credentials: the
 * delivery side releases what it held for that provider's endpoints (delivery/endpoint-health/endpoint-reset.ts). Passed in,
 * so that apps need not import delivery, which reads the credentials.
 */
export type CredentialsChanged = (tx: Tx, appId: string, provider: 'apns' | 'fcm') => Promise<unknown>;

/**
 * Use cases of apps: creation with fresh secrets, rotation, credentials, and their safe views.
 * Every write of an app's row goes through here and tells 'app-changed' once it is committed
 * (`appChanged`: authentication's cache of app rows, on every instance); the delivery worker's
 * channel pause is the one other writer (see app-row-cache.ts).
 */
export function appsService(ctx: AppContext, credentialsChanged: CredentialsChanged) {
  const repo = appsRepository(ctx.db.sql);
  const { box, clock } = ctx;

  const requirePlan = (plan: string) => {
    if (!Object.hasOwn(ctx.config.plans, plan)) {
      throw new HttpError(400, `plan must be one of ${Object.keys(ctx.config.plans).join(', ')}`);
    }
  };

  const get = async (id: string): Promise<AppRow> => {
    const row = await repo.find(id);
    if (!row) throw new HttpError(404, 'app not found');
    return row;
  };

  const secretColumns = (appId: string, appSecret: string, signingSecret: string) => ({
    appSecretHash: sha256Hex(appSecret),
    appSecretSealed: box.seal(appSecret, purpose(appId, 'app_secret')),
    signingSecretSealed: box.seal(signingSecret, purpose(appId, 'signing_secret')),
  });

  /** One provider's credentials sealed (or cleared), its pause lifted, and `credentialsChanged`, in one write. */
  const setCredentials = async (id: string, provider: 'apns' | 'fcm', creds: ApnsCredentials | FcmCredentials | undefined) => {
    await get(id);
    const sealed = creds ? box.seal(JSON.stringify(creds), purpose(id, provider)) : null;
    const columns = provider === 'apns' ? { apnsSealed: sealed, apnsPausedReason: null } : { fcmSealed: sealed, fcmPausedReason: null };
    await ctx.db.write(async (tx) => {
      await appsRepository(tx).update(id, { ...columns, updatedAt: clock.now() });
      await credentialsChanged(tx, id, provider);
      appChanged(ctx, id);
    });
  };

  return {
    repo,
    get,
    find: repo.find,
    list: repo.list,

    async create(input: { id?: string; name?: string; plan?: string; appSecret?: string; signingSecret?: string; source: AppRow['source'] }) {
      const id = input.id ?? newId('app', clock.now());
      const plan = input.plan ?? 'pro';
      requirePlan(plan);
      if (await repo.find(id)) throw new HttpError(409, `app ${id} already exists`);
      const appSecret = input.appSecret ?? generateSecret('sk');
      const signingSecret = input.signingSecret ?? generateSecret('ss');
      const now = clock.now();
      const row: AppRow = {
        id,
        name: input.name ?? id,
        plan,
        ...secretColumns(id, appSecret, signingSecret),
        apnsSealed: null,
        fcmSealed: null,
        apnsPausedReason: null,
        fcmPausedReason: null,
        source: input.source,
        defaultTimeZone: null,
        laPriority10PerHour: null,
        laFrequentPriority10PerHour: null,
        quietHours: null,
        frequencyCap: null,
        createdAt: now,
        updatedAt: now,
      };
      await repo.insert(row);
      appChanged(ctx, id);
      return { row, appSecret, signingSecret };
    },

    /**
     * Renames, changes the plan, the default time zone (`sendAtLocal` and quiet hours for devices
     * without one: 400 for a name that is not an IANA zone), the Live Activity budget of
     * `priority: "auto"`, the quiet hours or the frequency cap (null: none; 400 naming the field for
     * a malformed one). Absent fields stay as they are.
     */
    async update(
      id: string,
      input: { name?: string; plan?: string; defaultTimeZone?: string; liveActivityBudget?: Partial<LiveActivityBudget>; quietHours?: QuietHours | null; frequencyCap?: FrequencyCap | null },
    ) {
      const { liveActivityBudget, quietHours: quiet, frequencyCap: cap, ...patch } = input;
      await get(id);
      if (patch.plan !== undefined) requirePlan(patch.plan);
      const defaultTimeZone = patch.defaultTimeZone === undefined ? undefined : canonicalTimeZone(patch.defaultTimeZone);
      if (patch.defaultTimeZone !== undefined && !defaultTimeZone)
        throw new HttpError(400, `defaultTimeZone must be an IANA time zone such as Europe/Vienna: got ${JSON.stringify(patch.defaultTimeZone.slice(0, 64))}`);
      const limits = {
        ...(quiet !== undefined && { quietHours: quiet === null ? null : JSON.stringify(quietHours(quiet)) }),
        ...(cap !== undefined && { frequencyCap: cap === null ? null : JSON.stringify(frequencyCap(cap)) }),
      };
      await repo.update(id, { ...patch, ...limits, ...(defaultTimeZone && { defaultTimeZone }), ...budgetColumns(liveActivityBudget), updatedAt: clock.now() });
      appChanged(ctx, id);
      return get(id);
    },

    async remove(id: string) {
      if (!(await repo.remove(id))) throw new HttpError(404, 'app not found');
      appChanged(ctx, id);
    },

    /** Replaces one secret with a fresh one (or the given one) and returns it. */
    async setSecret(id: string, kind: SecretKind, value: string = generateSecret(kind === 'appSecret' ? 'sk' : 'ss')) {
      const row = await get(id);
      const secrets = this.secrets(row);
      secrets[kind] = value;
      await repo.update(id, { ...secretColumns(id, secrets.appSecret, secrets.signingSecret), updatedAt: clock.now() });
      appChanged(ctx, id);
      return value;
    },

    secrets(row: AppRow): { appSecret: string; signingSecret: string } {
      return {
        appSecret: box.open(row.appSecretSealed, purpose(row.id, 'app_secret')),
        signingSecret: box.open(row.signingSecretSealed, purpose(row.id, 'signing_secret')),
      };
    },

    /**
     * Stores APNs credentials (or removes them with undefined); new credentials resume a paused
     * channel, and release what was held for its down endpoints (`credentialsChanged`).
     */
    setApns(id: string, creds: ApnsCredentials | undefined) {
      return setCredentials(id, 'apns', creds);
    },

    /** Stores FCM credentials (or removes them with undefined), as `setApns` does for APNs. */
    setFcm(id: string, creds: FcmCredentials | undefined) {
      return setCredentials(id, 'fcm', creds);
    },

    apns(row: AppRow): ApnsCredentials | undefined {
      return row.apnsSealed ? (JSON.parse(box.open(row.apnsSealed, purpose(row.id, 'apns'))) as ApnsCredentials) : undefined;
    },

    fcm(row: AppRow): FcmCredentials | undefined {
      return row.fcmSealed ? (JSON.parse(box.open(row.fcmSealed, purpose(row.id, 'fcm'))) as FcmCredentials) : undefined;
    },

    /** The admin view of an app: never a secret, but what the channels are and why one is paused. */
    view(row: AppRow) {
      const apns = this.apns(row);
      const fcm = this.fcm(row);
      return {
        id: row.id,
        name: row.name,
        plan: row.plan,
        source: row.source,
        defaultTimeZone: row.defaultTimeZone ?? 'UTC',
        liveActivityBudget: budgetOf(row),
        quietHours: storedQuietHours(row.quietHours),
        frequencyCap: storedFrequencyCap(row.frequencyCap),
        createdAt: isoTime(row.createdAt),
        updatedAt: isoTime(row.updatedAt),
        channels: {
          apns: apns
            ? {
                transport: 'apns' as const,
                bundleId: apns.bundleId,
                teamId: apns.teamId,
                keyId: apns.keyId,
                environment: apns.environment,
                endpoint: apns.endpoint ?? null,
                sandboxEndpoint: apns.sandboxEndpoint ?? null,
                status: row.apnsPausedReason ? ('paused' as const) : ('active' as const),
                pausedReason: row.apnsPausedReason,
              }
            : { transport: 'simulator' as const, status: 'active' as const, pausedReason: null },
          fcm: fcm
            ? {
                transport: 'fcm' as const,
                projectId: fcm.serviceAccount.project_id,
                clientEmail: fcm.serviceAccount.client_email,
                endpoint: fcm.endpoint ?? null,
                status: row.fcmPausedReason ? ('paused' as const) : ('active' as const),
                pausedReason: row.fcmPausedReason,
              }
            : { transport: 'simulator' as const, status: 'active' as const, pausedReason: null },
        },
      };
    },
  };
}

export type AppsService = ReturnType<typeof appsService>;
