import type { SecretBox } from '../../lib/secrets';
import type { WebSubscription } from './web-push.validation';

/**
 * How a web device is kept (issue 46): a `devices` row of platform `web` whose `token` is the
 * subscription's endpoint (one device per app and endpoint: the same endpoint registered again
 * updates it), and its ledger token of kind `webpush_subscription` (value: the endpoint) that a
 * 404/410 invalidates like a phone's. The keys (`p256dh`, `auth`) are sealed on that token
 * (`tokens.secret_sealed`), bound to the app and endpoint, and never shown: the device record
 * shows only the endpoint's origin.
 */
const purpose = (appId: string, endpoint: string) => `tokens.webpush:${appId}:${endpoint}`;

/** The subscription's keys sealed for `tokens.secret_sealed`. */
export function sealSubscriptionKeys(box: SecretBox, appId: string, subscription: WebSubscription): string {
  const keys = { p256dh: subscription.p256dh.toString('base64url'), auth: subscription.auth.toString('base64url') };
  return box.seal(JSON.stringify(keys), purpose(appId, subscription.endpoint));
}

/** The keys sealed by sealSubscriptionKeys, decoded. @throws when the sealed value is not of this app and endpoint. */
export function openSubscriptionKeys(box: SecretBox, appId: string, endpoint: string, sealed: string): { p256dh: Buffer; auth: Buffer } {
  const keys = JSON.parse(box.open(sealed, purpose(appId, endpoint))) as { p256dh: string; auth: string };
  return { p256dh: Buffer.from(keys.p256dh, 'base64url'), auth: Buffer.from(keys.auth, 'base64url') };
}
