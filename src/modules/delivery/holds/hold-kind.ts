/**
 * What a `held` delivery waits for (`deliveries.hold_kind`; null when not held). The row's reason
 * stays a text for people (the API and console show it); code tells holds apart by this alone.
 * - token: an iOS Live Activity update or end before the activity's own push token is known;
 * - apns_paused / fcm_paused: the app's channel, paused until its credentials change;
 * - apns_down / fcm_down: an endpoint that stopped answering (the reason names the endpoint);
 * - quiet: the device's quiet hours, until `next_attempt_at` (quiet-holds.ts).
 */
export type HoldKind = 'token' | 'apns_paused' | 'fcm_paused' | 'webpush_paused' | 'apns_down' | 'fcm_down' | 'webpush_down' | 'quiet';

export type Provider = 'apns' | 'fcm' | 'webpush';

/** The hold of a delivery parked on its app's paused channel. */
export const pausedHold = (provider: Provider): HoldKind => `${provider}_paused`;

/** The hold of a delivery whose endpoint is down. */
export const downHold = (provider: Provider): HoldKind => `${provider}_down`;

/** Every hold for a down endpoint (recovery at start releases them all). */
export const DOWN_HOLDS: readonly HoldKind[] = ['apns_down', 'fcm_down', 'webpush_down'];

/** The reason shown for a delivery held for its activity's token. */
export const WAITING_FOR_TOKEN = 'waiting for the activity push token';

/** The reason shown for a delivery parked because its channel is paused. */
export const parkedReason = (provider: Provider) => `${provider} channel paused`;
