import type { Environment } from './tokens.types';

/**
 * The reason stored with a token a provider refused. BadDeviceToken for a well-formed token is
 * almost always a token of the other APNs environment (an Xcode build's token sent to production,
 * or a TestFlight build's to sandbox), so the reason says which host refused it and what to change.
 * @example refusalReason('BadDeviceToken', 'production') // 'BadDeviceToken from the production host: …'
 */
export function refusalReason(reason: string, environment: Environment | undefined): string {
  if (reason !== 'BadDeviceToken' || !environment) return reason;
  const other: Environment = environment === 'production' ? 'sandbox' : 'production';
  return (
    `BadDeviceToken from the ${environment} host: probably a ${other} token (${other === 'sandbox' ? 'a development build run from Xcode' : 'an App Store or TestFlight build'}); ` +
    `register the device with environment "${other}"`
  );
}
