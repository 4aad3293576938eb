import { HttpError } from '../../lib/errors';

/**
 * What a push token must look like before it is stored, so that nothing else ever reaches a
 * provider URL or message: one module, used by device registration and by the per-activity
 * push-token report.
 */

/** APNs device, push-to-start and per-activity tokens: hex, whole bytes, 32 to 100 of them. */
const APNS_TOKEN = /^(?:[0-9a-fA-F]{2}){32,100}$/;
/**
 * FCM registration tokens: letters, digits and `-_:` (FCM's alphabet). Google publishes no length;
 * real ones are about 150-200 characters, so 4096 is a generous bound.
 */
const FCM_TOKEN = /^[A-Za-z0-9_:-]{1,4096}$/;

/**
 * What is wrong with `token` as a token of `platform`, naming `field`, or undefined.
 * @example tokenProblem('ios', 'VICTIM#x', 'token') // 'token must be an APNs token: 64 to 200 hex digits'
 */
export function tokenProblem(platform: 'ios' | 'android', token: string, field: string): string | undefined {
  if (platform === 'ios') return APNS_TOKEN.test(token) ? undefined : `${field} must be an APNs token: an even number (64 to 200) of hex digits`;
  return FCM_TOKEN.test(token) ? undefined : `${field} must be an FCM registration token: up to 4096 letters, digits, -, _ or :`;
}

/** Refuses a device registration whose token or push-to-start token is not of its platform's shape (400). */
export function checkDeviceTokens(device: {
  platform: 'ios' | 'android';
  token: string;
  pushToStartToken?: string;
  pushToStartTokens?: Record<string, string>;
  widgetPushToken?: string;
  controlPushToken?: string;
  controlPushTokens?: string[];
}): void {
  // WidgetKit's tokens exist only on Apple's platforms.
  for (const field of ['widgetPushToken', 'controlPushToken', 'controlPushTokens'] as const)
    if (device[field] !== undefined && device.platform !== 'ios') throw new HttpError(400, `${field} is only for platform ios`);
  const problem =
    tokenProblem(device.platform, device.token, 'token') ??
    (device.widgetPushToken === undefined ? undefined : tokenProblem('ios', device.widgetPushToken, 'widgetPushToken')) ??
    (device.controlPushToken === undefined ? undefined : tokenProblem('ios', device.controlPushToken, 'controlPushToken')) ??
    (device.controlPushTokens ?? []).map((token, i) => tokenProblem('ios', token, `controlPushTokens[${i}]`)).find((p) => p !== undefined) ??
    (device.pushToStartToken === undefined ? undefined : tokenProblem(device.platform, device.pushToStartToken, 'pushToStartToken')) ??
    Object.entries(device.pushToStartTokens ?? {})
      .map(([type, token]) => tokenProblem(device.platform, token, `pushToStartTokens.${type}`))
      .find((p) => p !== undefined);
  if (problem) throw new HttpError(400, problem);
}
