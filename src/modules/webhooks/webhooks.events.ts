/** The events an endpoint may subscribe to, and what causes each. */
export const WEBHOOK_EVENTS = {
  'live_activity.started': 'an activity was started (one event per activity)',
  'live_activity.ended': 'an activity ended: endReason api, quota or expired',
  'live_activity.token_received': 'an iPhone reported the update token of its instance of an activity',
  'delivery.failed': 'a push was given up on (the provider refused it, retries ran out, or it could not be sent at all: an iPhone without a push-to-start token at a start)',
  'notification.opened': 'a device reported opening a notification (once per device and message)',
  'device.token_invalidated': 'APNs, FCM or a Web Push service refused a token for good (unregistered, bad token, subscription gone), or a web subscription was not registered again for expiry_days',
  'channel.down': 'a provider endpoint (APNs production or sandbox, FCM) of the app stopped answering: its deliveries are held',
  'channel.recovered': 'that endpoint answers again: the deliveries held for it go out',
  'broadcast.held': 'APNs answered FeatureNotEnabled for a broadcast: enable Broadcast Capability for the app id in Apple’s developer portal (once per broadcast held)',
  'broadcast.ended': 'a broadcast ended: endReason api, channel-gone: <APNs reason> (the channel no longer exists at Apple) or the reason its channel could not be made',
  'quota.warning': "an app used 80% of its plan's minutes in the billing period (once a period)",
  'quota.exceeded': "an app used all of its plan's minutes in the billing period (once a period)",
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
/** Sent only by POST …/webhooks/{id}/test, to that endpoint, whatever it subscribed to. */
export const TEST_EVENT = 'webhook.test';
