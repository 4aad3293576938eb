import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { checkSubscription } from '../web-push/web-push.validation';
import { sealSubscriptionKeys } from '../web-push/web-subscription';
import type { DeviceInput } from './devices.types';
import { checkDeviceTokens } from './token-format';

/** A registration's body as the routes take it: a phone's `token`, or a browser's `subscription`. */
export type RegistrationBody = Omit<DeviceInput, 'token' | 'secretSealed'> & { token?: string; subscription?: unknown };

/**
 * What a device registration stores, its tokens checked (400 naming the field): a phone's token
 * of its platform's shape; for `web`, the subscription (`PushSubscription.toJSON()`) checked
 * against the outbound policy, DNS included (web-push.validation.ts), its endpoint as the token
 * and its keys sealed (web-subscription.ts).
 */
export async function registrationInput(ctx: AppContext, appId: string, body: RegistrationBody): Promise<DeviceInput> {
  const { subscription, token, ...rest } = body;
  if (body.platform !== 'web') {
    if (subscription !== undefined) throw new HttpError(400, 'subscription is only for platform web');
    if (token === undefined) throw new HttpError(400, 'token is required');
    const input = { ...rest, platform: body.platform, token };
    checkDeviceTokens(input);
    return input;
  }
  if (token !== undefined) throw new HttpError(400, 'token is not for platform web: send subscription, as PushSubscription.toJSON() gives it');
  for (const field of ['pushToStartToken', 'pushToStartTokens', 'widgetPushToken', 'controlPushToken', 'controlPushTokens', 'environment'] as const)
    if (body[field] !== undefined) throw new HttpError(400, `${field} is only for platform ios`);
  if (subscription === undefined) throw new HttpError(400, 'subscription is required for platform web');
  const checked = await checkSubscription(subscription, { allowPrivate: ctx.config.security.allow_private_endpoints });
  if ('problem' in checked) throw new HttpError(400, checked.problem.detail);
  return { ...rest, token: checked.subscription.endpoint, secretSealed: sealSubscriptionKeys(ctx.box, appId, checked.subscription) };
}
