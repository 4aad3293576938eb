import type { devices, endUsers } from '../../db/schema';

export type DeviceRow = typeof devices.$inferSelect;

export type EndUserRow = typeof endUsers.$inferSelect;

export interface DeviceInput {
  endUserId: string;
  platform: 'ios' | 'android';
  token: string;
  pushToStartToken?: string;
  /** Push-to-start tokens of app-defined ActivityAttributes types (issue 39), by type; the IsletActivityAttributes one is `pushToStartToken`. */
  pushToStartTokens?: Record<string, string>;
  environment?: 'production' | 'sandbox';
  /** The OS version the device reports (`18.2`); absent: unchanged. */
  osVersion?: string;
  /** Canonical BCP 47 tag (`de-AT`); absent: unchanged. */
  locale?: string;
  /** Canonical IANA zone (`Europe/Vienna`); absent: unchanged. */
  timeZone?: string;
  tester?: boolean;
}

/** A valid device a fan-out goes to: one whose registration token the providers still take. */
export interface TargetDevice {
  id: string;
  endUserId: string;
  platform: 'ios' | 'android';
  /** The ledger id of its registration (alert) token. */
  tokenId: number;
  /** The ledger id of its active push-to-start token (iOS), if any. */
  pushToStartTokenId: number | null;
  /** The OS version it registered, if any. */
  osVersion: string | null;
  createdAt: number;
}

/** The reach of a send to everyone (targets() without end user ids), counted. */
export interface Audience {
  endUsers: number;
  devices: number;
  ios: number;
  android: number;
  /** iPhones with a push-to-start token: those a Live Activity start reaches. */
  iosStartable: number;
}

/**
 * Who a send, start or broadcast subscription reaches instead of a list of end users (issue 38):
 * every given condition must hold; a tag's list matches any of its values.
 */
export interface AudienceFilter {
  tags?: Record<string, string | string[]>;
  platform?: 'ios' | 'android';
  /** Canonical BCP 47 tags: a language alone (`de`) matches every device locale of it (`de-AT`), a full tag only itself. */
  locales?: string[];
}

/** Which devices a fan-out goes to: end users by id, or an audience (one of them), optionally only testers'. */
export interface TargetFilter {
  endUserIds?: string[];
  audience?: AudienceFilter;
  testersOnly?: boolean;
}

/** A notification send's targets: for a `sendAtLocal` part only devices whose own zone, else `defaultZone`, is one of `zones`. */
export interface SendFilter extends TargetFilter {
  timeZones?: { zones: string[]; defaultZone: string };
}

/** A device a notification send queues a delivery for, and the ledger token it goes to. */
export interface SendTarget {
  deviceId: string;
  tokenId: number;
  /** The device's canonical BCP 47 tag: which localization of the template it gets. */
  locale: string | null;
}

/** A device with what the ledger says about its tokens, as the admin API shows it. */
export interface DeviceWithTokens extends DeviceRow {
  tokenState: 'active' | 'invalid' | null;
  invalidReason: string | null;
  /** The attributes types of the device's active push-to-start tokens, comma-joined (IsletActivityAttributes for the built-in one); null: none. */
  pushToStartTypes: string | null;
}

/** The devices repository: what every database implements (one implementation for both databases: src/db/repositories/devices.ts). */
export interface DevicesRepository {
  /** How many end users and valid devices a send or start to everyone (or every tester) reaches: what a confirmation names. */
  audience(appId: string, testersOnly: boolean): Promise<Audience>;
  /**
   * The valid devices of the given end users (all connected end users when `endUserIds` is
   * undefined) or of an audience, optionally only testers', ordered by end user then registration time.
   * Unknown end user ids simply match nothing.
   */
  targets(appId: string, filter?: TargetFilter): Promise<TargetDevice[]>;
  /**
   * The same devices as `targets`, as the outbox needs them for a notification send, read one by
   * one as the caller iterates (inside its transaction): a send to 1,000,000 devices never holds
   * them all in memory.
   */
  sendTargets(appId: string, filter?: SendFilter): Promise<IterableIterator<SendTarget>>;
  /** How many valid devices, and of how many end users, an audience reaches. */
  countAudience(appId: string, audience: AudienceFilter): Promise<{ devices: number; users: number }>;
  /**
   * Registers or refreshes a device (one per app, platform and token) and its end user, and
   * writes its tokens into the ledger, in one transaction. A token registered again is valid
   * again, even if a provider had refused it; a push-to-start token moves to this device row if
   * another row had it (the same phone after a device-token rotation). `newDeviceId`: the id a new
   * device gets instead of a generated one (the demo's fixed ids).
   */
  upsert(appId: string, input: DeviceInput, now: number, newDeviceId?: string): Promise<{ device: DeviceWithTokens; created: boolean }>;
  find(appId: string, id: string): Promise<DeviceWithTokens | undefined>;
  remove(appId: string, id: string): Promise<boolean>;
  list(appId: string, filter: { endUserId?: string }, limit: number, offset: number): Promise<{ rows: DeviceWithTokens[]; total: number }>;
  listEndUsers(
    appId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: { id: string; tester: boolean; createdAt: number; lastSeenAt: number; devices: number }[]; total: number }>;
  setTester(appId: string, endUserId: string, tester: boolean): Promise<boolean>;
}
