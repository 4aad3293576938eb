import type { tokens } from './tokens.tables';

/** The token kind a device registers with, by platform. */
export const deviceTokenKind = (platform: 'ios' | 'android' | 'web'): 'apns_device' | 'fcm_registration' | 'webpush_subscription' =>
  platform === 'ios' ? 'apns_device' : platform === 'web' ? 'webpush_subscription' : 'fcm_registration';

export type TokenRow = typeof tokens.$inferSelect;

export type TokenKind = TokenRow['kind'];

export type Environment = 'production' | 'sandbox';
