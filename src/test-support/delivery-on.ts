import { expect } from 'bun:test';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context';
import { newId } from '../lib/ids';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineOptions } from '../modules/delivery/delivery.engine';
import type { MessageContent } from '../modules/delivery/message-content';
import type { DeliveryTarget } from '../modules/delivery/outbox/outbox';
import type { DeviceInput } from '../modules/devices/devices.types';
import { apnsToken, startApnsStandin, type ApnsStandin } from './apns-standin';
import { activityContent, apnsKey } from './delivery-fixtures';
import { startFcmStandin, type FcmStandin } from './fcm-standin';
import { createHarness, type Harness, type TestContext, type TestDatabase } from './harness';
import { testRows } from './test-sql';
import { tokensRepository } from '../modules/tokens/tokens.repository';
import { devicesRepository } from '../modules/devices/devices.repository';

/*
 * The delivery rigs and fixtures of delivery-rig.ts and delivery-fixtures.ts on either database
 * (forEachDatabase): asynchronous, reading rows through testRows, so the delivery tests run on
 * SQLite and PostgreSQL alike.
 */

export type DeliveryHarness = Harness<AppContext>;

/** apnsRig on `database`: a harness with the app `demo` whose APNs credentials point at a stand-in. */
export async function apnsRigOn(database: TestDatabase, options: { bundleId?: string; standinKnowsBundle?: boolean; engine?: DeliveryEngineOptions } = {}) {
  const { bundleId = 'com.x', standinKnowsBundle = false } = options;
  const h = await createHarness({ database });
  const key = apnsKey();
  const apns: ApnsStandin = await startApnsStandin({ keys: [key], ...(standinKnowsBundle ? { bundleIds: [bundleId] } : {}), clock: h.clock });
  await h.createApp({ id: 'demo' });
  const res = await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId, teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
  expect(res.status).toBe(200);
  const engine = createDeliveryEngine(h.ctx, { random: () => 0.5, ...options.engine });
  return { h, apns, engine, key };
}

/** fcmRig on `database`: the app `demo`'s FCM credentials are those of `demo-project` on a stand-in. */
export async function fcmRigOn(database: TestDatabase, options: { standin?: Parameters<typeof startFcmStandin>[0]; engine?: DeliveryEngineOptions } = {}) {
  const h = await createHarness({ database });
  const fcm: FcmStandin = await startFcmStandin(options.standin);
  await h.createApp({ id: 'demo' });
  await setFcmCredentialsOn(h, fcm, 'demo-project');
  const engine = createDeliveryEngine(h.ctx, { random: () => 0.5, ...options.engine });
  return { h, fcm, engine };
}

/** Points the app `demo`'s FCM credentials at the stand-in, as the service account of `project`. */
export async function setFcmCredentialsOn(h: DeliveryHarness, fcm: FcmStandin, project: string): Promise<void> {
  const res = await h.admin('PUT', '/api/admin/apps/demo/fcm', { serviceAccount: fcm.serviceAccount(project), endpoint: fcm.url });
  expect(res.status).toBe(200);
}

/** Stops what a rig started, the engine first. */
export async function closeRigOn(rig: { engine?: DeliveryEngine; standin?: { close(): Promise<unknown> }; h?: DeliveryHarness }): Promise<void> {
  await rig.engine?.stop();
  await rig.standin?.close();
  rig.h?.close();
}

/** Registers a device the way the devices API does; iOS devices get APNs-shaped tokens. */
export async function addDeviceOn(ctx: AppContext, appId: string, input: Partial<DeviceInput> & { platform: 'ios' | 'android' }) {
  const token = input.token ?? (input.platform === 'ios' ? apnsToken() : `fcm-${randomBytes(12).toString('hex')}`);
  return (await devicesRepository(ctx.db.sql).upsert(appId, { endUserId: 'user-1', ...input, token }, ctx.clock.now())).device;
}

/** An Active activity row, as the Live Activities module writes it; `activityToken`: an iPhone's update token for it. */
export async function addActivityOn(ctx: AppContext, appId: string, input: { platform: 'ios' | 'android'; activityToken?: { deviceId: string; token: string } }) {
  const id = newId('la', ctx.clock.now());
  await testRows(
    ctx,
    `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at) VALUES (?, ?, 'user-1', 'progress-bar', ?, 'Active', ?, ?, ?)`,
    [id, appId, input.platform, JSON.stringify({ label: 'Upload' }), JSON.stringify({ progress: '10' }), ctx.clock.now()],
  );
  const t = input.activityToken;
  if (t) await tokensRepository(ctx.db.sql).reportActivity(appId, id, t.deviceId, t.token, (await devicesRepository(ctx.db.sql).find(appId, t.deviceId))?.environment ?? null, ctx.clock.now());
  return id;
}

/** activityContent of delivery-fixtures.ts for a context on either database (it reads only the clock). */
export const activityContentOn = (ctx: AppContext, ...rest: Parameters<typeof activityContent> extends [unknown, ...infer R] ? R : never) =>
  activityContent(ctx as TestContext, ...rest);

/** Queues a message to devices in one transaction, to the token the API modules would pick (see delivery-fixtures.ts queue). */
export async function queueOn(ctx: AppContext, appId: string, content: MessageContent, targets: (string | DeliveryTarget)[]) {
  const tokens = tokensRepository(ctx.db.sql);
  const tokenFor = async (deviceId: string): Promise<number | undefined> => {
    const own = await tokens.ofDevice(deviceId);
    if (content.type === 'live_activity' && own.some((t) => t.kind === 'apns_device')) {
      if (content.event === 'start') return own.find((t) => t.kind === 'apns_push_to_start')?.id;
      return (await tokens.activityToken(content.activityId, deviceId))?.id;
    }
    return own.find((t) => t.kind === 'apns_device' || t.kind === 'fcm_registration')?.id;
  };
  const list: DeliveryTarget[] = [];
  for (const t of targets) list.push(typeof t === 'string' ? { deviceId: t, tokenId: await tokenFor(t) } : t);
  return ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId, content, targets: list, now: ctx.clock.now() }));
}

export interface DeliveryRowOn {
  id: number;
  status: string;
  attempts: number;
  provider: string | null;
  provider_id: string | null;
  reason: string | null;
  hold_kind: string | null;
  sent_payload: string | null;
  next_attempt_at: number;
  device_id: string;
}

/** Deliveries as stored, oldest first. */
export function deliveryRowsOn(ctx: AppContext, where = '1 = 1'): Promise<DeliveryRowOn[]> {
  return testRows<DeliveryRowOn>(
    ctx,
    `SELECT id, status, attempts, provider, provider_id, reason, hold_kind, sent_payload, next_attempt_at, device_id FROM deliveries WHERE ${where} ORDER BY id`,
  );
}
