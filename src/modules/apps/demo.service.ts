import { createHash } from 'node:crypto';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';

/** The demo's ids: the OpenAPI examples use them, so "Try it out" works as shipped on a demo instance. */
export const DEMO = {
  appId: 'demo',
  endUserId: 'demo-user',
  friendId: 'demo-friend',
  releaseVersion: 1,
  /** A Draft copy of release 1: the one to edit (its templates, its status) while 1 stays Live. */
  draftVersion: 2,
  notificationSlug: 'order-shipped',
  iphoneId: 'dev_demo_iphone',
  pixelId: 'dev_demo_pixel',
  friendDeviceId: 'dev_demo_friend',
  activityId: 'la_demo',
  /** A broadcast Live Activity (simulated channel) the examples of /broadcasts/{id} name. */
  broadcastId: 'bc_demo',
  /** A Live Activity stream (PUT …/live-activity-streams/{key}) of demo-user's order. */
  streamKey: 'demo-order',
  /** The notification the demo sends (GET …/notifications/{messageId} follows it). */
  messageId: 'msg_demo',
  /** An app-defined Live Activity template (its own RideAttributes type). */
  liveActivityTemplateSlug: 'ride',
} as const;

/** The demo's app-defined Live Activity template: a ride, with a field of every type. */
export const DEMO_RIDE_TEMPLATE = {
  slug: DEMO.liveActivityTemplateSlug,
  attributesType: 'RideAttributes',
  attributes: { driver: { type: 'string', required: true }, plate: { type: 'string' } },
  contentState: {
    etaMinutes: { type: 'integer', required: true },
    progress: { type: 'number' },
    arrived: { type: 'boolean' },
    pickupAt: { type: 'date' },
    stops: { type: 'string', list: true },
  },
} as const;

/** A fixed token of the right shape per name: the demo's simulated devices are the same on every instance. */
const apnsToken = (name: string) => createHash('sha256').update(`islet-demo:${name}`).digest('hex');

export interface DemoSummary {
  appId: string;
  appSecret: string;
  signingSecret: string;
  endUsers: string[];
  devices: number;
  releaseVersion: number;
  activityId: string | undefined;
  notifications: number;
}

/**
 * Creates the demo app `demo` with two end users (`demo-user`, a tester, with a simulated iPhone
 * and Android phone; `demo-friend` with an Android phone), a Live release 1 with two notification
 * templates and a Draft release 2 to edit, a running Live Activity (`la_demo`), a Live Activity
 * stream (`demo-order`), a broadcast (`bc_demo`) and a welcome notification. Without APNs or FCM
 * credentials everything goes to the simulator, so the console shows the whole flow at once.
 * Refused with 409 when an app `demo` exists (delete it for a fresh one).
 */
export async function createDemo(services: Services): Promise<DemoSummary> {
  const { apps, devices, releases, notifications, liveActivities, liveActivityTemplates, streams, broadcasts, ctx } = services;
  if (await apps.find(DEMO.appId)) throw new HttpError(409, `app ${DEMO.appId} already exists: open it in the console, or delete it to make a fresh demo`);
  const plan = Object.entries(ctx.config.plans).find(([name, p]) => name === 'pro' && p.live_activities)?.[0] ?? Object.entries(ctx.config.plans).find(([, p]) => p.live_activities)?.[0];
  if (!plan) throw new HttpError(422, 'no plan of the configuration allows live activities; add one to [plans] for the demo');
  const created = await apps.create({ id: DEMO.appId, name: 'Demo app', plan, source: 'api' });
  const now = ctx.clock.now();
  // Fixed ids, so that the documented examples name devices and an activity that exist.
  await devices.upsert(DEMO.appId, { endUserId: DEMO.endUserId, platform: 'ios', token: apnsToken('iphone'), pushToStartToken: apnsToken('iphone-push-to-start') }, now, DEMO.iphoneId);
  await devices.upsert(DEMO.appId, { endUserId: DEMO.endUserId, platform: 'android', token: 'demo-android-pixel' }, now, DEMO.pixelId);
  await devices.upsert(DEMO.appId, { endUserId: DEMO.friendId, platform: 'android', token: 'demo-android-friend' }, now, DEMO.friendDeviceId);
  await devices.setTester(DEMO.appId, DEMO.endUserId, true);
  // Web Push on, so that the documented web-push operations answer on the demo.
  await services.webPush.configure(DEMO.appId, { subject: 'mailto:demo@example.com', defaultUrl: 'https://example.com/', source: 'api' });
  await releases.create(DEMO.appId, {
    version: DEMO.releaseVersion,
    templates: [
      { slug: 'welcome', title: 'Welcome, {{name}}!', body: 'Thanks for trying {{app}}.' },
      { slug: DEMO.notificationSlug, title: 'Your order {{order}} has shipped', body: 'It arrives {{eta}}.' },
    ],
  });
  await releases.setStatus(DEMO.appId, DEMO.releaseVersion, 'Live');
  await releases.create(DEMO.appId, {
    version: DEMO.draftVersion,
    templates: [
      { slug: 'welcome', title: 'Welcome aboard, {{name}}!', body: 'Thanks for trying {{app}}.' },
      { slug: DEMO.notificationSlug, title: 'Your order {{order}} is on its way', body: 'It arrives {{eta}}.' },
    ],
  });
  const started = await liveActivities.start(created.row, {
    templateSlug: 'progress-bar',
    attributes: { label: 'Delivering your order' },
    contentState: { progress: '40', detail: '2 stops away' },
    targetUsers: [DEMO.endUserId],
  }, { activityId: () => DEMO.activityId });
  await streams.put(created.row, DEMO.streamKey, {
    templateSlug: 'status-tracker',
    attributes: { title: 'Order #1042', steps: 'Ordered,Packed,Shipped,Delivered' },
    contentState: { currentStep: '2', status: 'On its way' },
    targetUsers: [DEMO.endUserId],
  });
  await liveActivityTemplates.create(DEMO.appId, structuredClone(DEMO_RIDE_TEMPLATE) as Parameters<typeof liveActivityTemplates.create>[1]);
  await broadcasts.create(created.row, { templateSlug: 'metric-live', attributes: { label: 'Final: Lions v Tigers' }, contentState: { value: '0 - 0' } }, DEMO.broadcastId);
  const sent = await notifications.send(DEMO.appId, { templateSlug: 'welcome', variables: { name: 'there', app: 'Islet' } }, { messageId: DEMO.messageId });
  return {
    appId: DEMO.appId,
    appSecret: created.appSecret,
    signingSecret: created.signingSecret,
    endUsers: [DEMO.endUserId, DEMO.friendId],
    devices: 3,
    releaseVersion: DEMO.releaseVersion,
    activityId: started.activities[0]?.id,
    notifications: sent.messageCount,
  };
}
