import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { TestContext } from './harness';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import { activities } from '../modules/live-activities/live-activities.tables';
import { newId } from '../lib/ids';
import type { DeviceInput } from '../modules/devices/devices.types';
import type { LiveActivityContent, LiveActivityEvent, MessageContent, NotificationContent } from '../modules/delivery/message-content';
import type { DeliveryTarget } from '../modules/delivery/outbox/outbox';
import { apnsToken } from './apns-standin';
import { tokensRepository } from '../modules/tokens/tokens.repository';
import { devicesRepository } from '../modules/devices/devices.repository';

/**
 * The value of a repository call that has settled: a SQLite statement does its work when called,
 * so `queue` reads tokens synchronously. Throws the call's error if it failed (Bun.peek
 * would hand it back as a value), and says so if it had not settled.
 */
export function settled<T>(promise: Promise<T>): T {
  const status = Bun.peek.status(promise);
  if (status === 'pending') throw new Error('the repository call has not settled');
  const value = Bun.peek(promise);
  if (status === 'rejected') {
    // Thrown here instead: handled, so it is not reported again as an unhandled rejection.
    promise.catch(() => {});
    throw value;
  }
  return value as T;
}

/** A fresh APNs auth key: the .p8 PEM Islet stores and the public half a stand-in verifies with. */
export function apnsKey(keyId = `K${randomBytes(5).toString('hex').toUpperCase().slice(0, 9)}`, teamId = 'TEAM123456') {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    keyId,
    teamId,
    key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

/** Registers a device the way the devices API does; iOS devices get APNs-shaped tokens. */
export async function addDevice(ctx: TestContext, appId: string, input: Partial<DeviceInput> & { platform: 'ios' | 'android' }) {
  const token = input.token ?? (input.platform === 'ios' ? apnsToken() : `fcm-${randomBytes(12).toString('hex')}`);
  return (await devicesRepository(ctx.db.sql).upsert(appId, { endUserId: 'user-1', ...input, token }, ctx.clock.now())).device;
}

/** `count` devices registered one after another (each registration is its own transaction). */
export async function addDevices(ctx: TestContext, appId: string, count: number, input: Partial<DeviceInput> & { platform: 'ios' | 'android' }) {
  const devices = [];
  for (let i = 0; i < count; i++) devices.push(await addDevice(ctx, appId, input));
  return devices;
}

/** An Active activity row, as the Live Activities module writes it; `activityToken`: an iPhone's update token for it. */
export async function addActivity(
  ctx: TestContext,
  appId: string,
  input: { platform: 'ios' | 'android'; activityToken?: { deviceId: string; token: string }; endUserId?: string },
) {
  const id = newId('la', ctx.clock.now());
  drizzle({ client: ctx.db.sqlite.$client })
    .insert(activities)
    .values({
      id,
      appId,
      endUserId: input.endUserId ?? 'user-1',
      templateSlug: 'progress-bar',
      platform: input.platform,
      state: 'Active',
      attributes: JSON.stringify({ label: 'Upload' }),
      contentState: JSON.stringify({ progress: '10' }),
      startedAt: ctx.clock.now(),
    })
    .run();
  const t = input.activityToken;
  const environment = t && ((await devicesRepository(ctx.db.sql).find(appId, t.deviceId))?.environment ?? null);
  if (t) await tokensRepository(ctx.db.sql).reportActivity(appId, id, t.deviceId, t.token, environment ?? null, ctx.clock.now());
  return id;
}

export function notificationContent(title = 'Hello', body = 'World'): NotificationContent {
  return { type: 'notification', templateSlug: 'welcome', releaseVersion: 1, title, body };
}

export function activityContent(
  ctx: TestContext,
  activityId: string,
  event: LiveActivityEvent,
  contentState: Record<string, string> = { progress: '50' },
  extra: Partial<LiveActivityContent> = {},
): LiveActivityContent {
  return {
    type: 'live_activity',
    event,
    activityId,
    templateSlug: 'progress-bar',
    attributes: { label: 'Upload' },
    contentState,
    timestamp: ctx.clock.now(),
    ...(event === 'start' ? { alert: { title: 'Upload', body: 'Started' } } : {}),
    ...extra,
  };
}

/**
 * Queues a message to devices in one transaction, as the API modules do. A device given by id goes
 * to the token the API modules would pick: an iPhone's push-to-start token for a start, its
 * activity token for an update or end (none yet: left for the worker to hold), else the device's
 * registration token.
 */
export function queue(ctx: TestContext, appId: string, content: MessageContent, targets: (string | DeliveryTarget)[]) {
  const tokens = tokensRepository(ctx.db.sql);
  const tokenFor = (deviceId: string): number | undefined => {
    // Invalid ones too: a delivery queued before its token was refused still names it.
    const own = settled(tokens.ofDevice(deviceId));
    if (content.type === 'live_activity' && own.some((t) => t.kind === 'apns_device')) {
      if (content.event === 'start') return own.find((t) => t.kind === 'apns_push_to_start')?.id;
      return settled(tokens.activityToken(content.activityId, deviceId))?.id;
    }
    return own.find((t) => t.kind === 'apns_device' || t.kind === 'fcm_registration')?.id;
  };
  const list = targets.map((t) => (typeof t === 'string' ? { deviceId: t, tokenId: tokenFor(t) } : t));
  return ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId, content, targets: list, now: ctx.clock.now() }));
}

/** Deliveries as stored, oldest first. */
export function deliveryRows(ctx: TestContext, where = '1 = 1') {
  return ctx.db.sqlite.$client
    .query<
      { id: number; status: string; attempts: number; provider: string | null; provider_id: string | null; reason: string | null; sent_payload: string | null; next_attempt_at: number; device_id: string },
      []
    >(`SELECT * FROM deliveries WHERE ${where} ORDER BY id`)
    .all();
}
