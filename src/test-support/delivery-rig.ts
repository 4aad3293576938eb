import { expect } from 'bun:test';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineOptions } from '../modules/delivery/delivery.engine';
import { startApnsStandin, type ApnsStandin } from './apns-standin';
import { apnsKey } from './delivery-fixtures';
import { startFcmStandin, type FcmStandin } from './fcm-standin';
import { createHarness, type Harness } from './harness';

/*
 * What a delivery test starts from (a rig): a harness with the app `demo`, its credentials pointing
 * at a provider stand-in on loopback, and a delivery engine the test drains (jitter fixed at 0.5).
 */

/**
 * A rig on an APNs stand-in that knows a fresh key (and, if asked, only the app's bundle id).
 * @example ({ h, apns, engine, key } = await apnsRig({ bundleId: 'com.example.demo', standinKnowsBundle: true }));
 */
export async function apnsRig(options: { bundleId?: string; standinKnowsBundle?: boolean; engine?: DeliveryEngineOptions } = {}) {
  const { bundleId = 'com.x', standinKnowsBundle = false } = options;
  const h = await createHarness();
  const key = apnsKey();
  const apns: ApnsStandin = await startApnsStandin({ keys: [key], ...(standinKnowsBundle ? { bundleIds: [bundleId] } : {}), clock: h.clock });
  await h.createApp({ id: 'demo' });
  const res = await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId, teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
  expect(res.status).toBe(200);
  const engine = createDeliveryEngine(h.ctx, { random: () => 0.5, ...options.engine });
  return { h, apns, engine, key };
}

/** Points the app `demo`'s FCM credentials at the stand-in, as the service account of `project`. */
export async function setFcmCredentials(h: Harness, fcm: FcmStandin, project: string): Promise<void> {
  const res = await h.admin('PUT', '/api/admin/apps/demo/fcm', { serviceAccount: fcm.serviceAccount(project), endpoint: fcm.url });
  expect(res.status).toBe(200);
}

/**
 * A rig on an FCM stand-in, the app's credentials being those of the project `demo-project`.
 * @example ({ h, fcm, engine } = await fcmRig({ engine: { health: { downAfterMs: 0 } } }));
 */
export async function fcmRig(options: { standin?: Parameters<typeof startFcmStandin>[0]; engine?: DeliveryEngineOptions } = {}) {
  const h = await createHarness();
  const fcm = await startFcmStandin(options.standin);
  await h.createApp({ id: 'demo' });
  await setFcmCredentials(h, fcm, 'demo-project');
  const engine = createDeliveryEngine(h.ctx, { random: () => 0.5, ...options.engine });
  return { h, fcm, engine };
}

/** Stops what a rig started, the engine first (it may still be sending to the stand-in). */
export async function closeRig(rig: { engine?: DeliveryEngine; standin?: { close(): Promise<unknown> }; h?: Harness }): Promise<void> {
  await rig.engine?.stop();
  await rig.standin?.close();
  rig.h?.close();
}
