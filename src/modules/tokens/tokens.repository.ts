import type { tokens } from './tokens.tables';

/** The token kind a device registers with, by platform. */
export const deviceTokenKind = (platform: 'ios' | 'android'): 'apns_device' | 'fcm_registration' => (platform === 'ios' ? 'apns_device' : 'fcm_registration');

export type TokenRow = typeof tokens.$inferSelect;

export type TokenKind = TokenRow['kind'];

export type Environment = 'production' | 'sandbox';

/** The tokens repository: what every database implements (one implementation for both databases: src/db/repositories/tokens.ts). */
export interface TokensRepository {
  /**
   * Records a device's registration token or push-to-start token as reported now; returns its id.
   * `attributesType`: the app-defined ActivityAttributes type a push-to-start token starts
   * (absent: IsletActivityAttributes); a device keeps one active push-to-start token per type.
   */
  report(
    appId: string,
    kind: Exclude<TokenKind, 'apns_activity'>,
    value: string,
    deviceId: string,
    environment: Environment | null,
    now: number,
    attributesType?: string | null,
  ): Promise<number>;
  /** The active push-to-start tokens of an app-defined attributes type among these devices. */
  pushToStartFor(deviceIds: readonly string[], attributesType: string): Promise<{ deviceId: string; id: number }[]>;
  /** Records the update token of an activity on one device; returns its id. */
  reportActivity(appId: string, activityId: string, deviceId: string, value: string, environment: Environment | null, now: number): Promise<number>;
  /**
   * Marks one token invalid. `since` is when the provider last found it invalid (APNs 410
   * `timestamp`): if the device reported the token after that, the refusal is stale and ignored.
   * Returns whether the token was invalidated.
   */
  invalidate(id: number, reason: string, now: number, since?: number): Promise<boolean>;
  /** Moves every token of a device to the environment it now declares (null: the app's default). */
  setEnvironment(deviceId: string, environment: Environment | null): Promise<void>;
  activityToken(activityId: string, deviceId: string): Promise<TokenRow | undefined>;
  ofDevice(deviceId: string): Promise<TokenRow[]>;
  find(id: number): Promise<TokenRow | undefined>;
}
