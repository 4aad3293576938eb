import type { StandinAnswer } from './apns-answer';

/**
 * Apple's rules for alert and background pushes, as the APNs stand-in applies them after its header
 * checks ("Sending notification requests to APNs", "Generating a remote notification", "Pushing
 * background updates to your app"):
 *
 * - `apns-collapse-id` at most 64 bytes: 400 `BadCollapseId`.
 * - `apns-expiration` a Unix time in seconds (0: do not store): 400 `BadExpirationDate`.
 * - A background push (`apns-push-type: background`) goes at priority 5 (Apple: "It is an error to
 *   specify priority 10 for a notification whose payload contains only the content-available key"):
 *   400 `BadPriority`; its `aps` holds `content-available: 1` and nothing that alerts, sounds or badges.
 * - `interruption-level` one of passive, active, time-sensitive, critical; `relevance-score` 0 to 1.
 *
 * Apple documents the last two rules and the silence of a background push, but no reason code for
 * breaking them (APNs accepts the push and the phone does not do what was asked): the stand-in
 * refuses them with 400 and a reason of its own, starting `Standin`, so a test sees the mistake.
 */
export function checkNotificationPush(pushType: string, headers: Record<string, string>, body: { aps?: Record<string, unknown> }): StandinAnswer | undefined {
  if (pushType !== 'alert' && pushType !== 'background') return undefined;
  const collapseId = headers['apns-collapse-id'];
  if (collapseId !== undefined && Buffer.byteLength(collapseId) > 64) return { status: 400, reason: 'BadCollapseId' };
  const expiration = headers['apns-expiration'];
  if (expiration !== undefined && !/^\d{1,10}$/.test(expiration)) return { status: 400, reason: 'BadExpirationDate' };
  const aps = body.aps ?? {};
  if (pushType === 'background') {
    if (headers['apns-priority'] !== '5') return { status: 400, reason: 'BadPriority' };
    if (aps['content-available'] !== 1) return { status: 400, reason: 'StandinBackgroundWithoutContentAvailable' };
    if (['alert', 'sound', 'badge'].some((key) => aps[key] !== undefined)) return { status: 400, reason: 'StandinBackgroundNotSilent' };
  }
  const level = aps['interruption-level'];
  if (level !== undefined && !['passive', 'active', 'time-sensitive', 'critical'].includes(level as string)) return { status: 400, reason: 'StandinBadInterruptionLevel' };
  const score = aps['relevance-score'];
  if (score !== undefined && !(typeof score === 'number' && score >= 0 && score <= 1)) return { status: 400, reason: 'StandinBadRelevanceScore' };
  return undefined;
}

/**
 * Apple's rules for WidgetKit pushes ("Updating widgets with WidgetKit push notifications",
 * "Updating controls locally and remotely"): the topic suffix is checked with the others
 * (`.push-type.widgets`, `.push-type.controls`); the body's `aps` sets `content-changed` to `true`,
 * and nothing else (a reload shows nothing). Apple names no reason code for a body without it
 * (WidgetKit simply does not reload), so the stand-in answers 400 with one of its own.
 */
export function checkReloadPush(pushType: string, body: { aps: Record<string, unknown> }): StandinAnswer | undefined {
  if (pushType !== 'widgets' && pushType !== 'controls') return undefined;
  if (body.aps['content-changed'] !== true) return { status: 400, reason: 'StandinReloadWithoutContentChanged' };
  if (Object.keys(body.aps).length !== 1) return { status: 400, reason: 'StandinReloadNotOnlyContentChanged' };
  return undefined;
}
