import type { devices } from './devices.tables';

export type DeviceRow = typeof devices.$inferSelect;

export interface DeviceInput {
  endUserId: string;
  platform: 'ios' | 'android' | 'web';
  token: string;
  /** web: the subscription's keys, sealed (web-push/web-subscription.ts); stored on its token. */
  secretSealed?: string;
  pushToStartToken?: string;
  /** Push-to-start tokens of app-defined ActivityAttributes types (issue 39), by type; the IsletActivityAttributes one is `pushToStartToken`. */
  pushToStartTokens?: Record<string, string>;
  /** iOS 26+: WidgetKit's widget push token (`WidgetPushHandler`), hex; a widget reload goes to it (issue 47). */
  widgetPushToken?: string;
  /** iOS 18+: WidgetKit's control push token (`ControlPushHandler`), hex; a control reload goes to it. */
  controlPushToken?: string;
  /** iOS 18+: every control push token of the device (one per control with a push handler), hex: the set replaces the one kept before. */
  controlPushTokens?: string[];
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
  platform: 'ios' | 'android' | 'web';
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
  web: number;
  /** iPhones with a push-to-start token: those a Live Activity start reaches. */
  iosStartable: number;
}

/**
 * Who a send, start or broadcast subscription reaches instead of a list of end users (issue 38):
 * every given condition must hold; a tag's list matches any of its values.
 */
export interface AudienceFilter {
  tags?: Record<string, string | string[]>;
  platform?: 'ios' | 'android' | 'web';
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
  /** Its end user (a frequency cap counts per end user; they may have quiet hours of their own). */
  endUserId: string;
  /** The IANA zone it reported (quiet hours); null: the app's default. */
  timeZone: string | null;
}

/** A device with what the ledger says about its tokens, as the admin API shows it. */
export interface DeviceWithTokens extends DeviceRow {
  tokenState: 'active' | 'invalid' | null;
  invalidReason: string | null;
  /** The attributes types of the device's active push-to-start tokens, comma-joined (IsletActivityAttributes for the built-in one); null: none. */
  pushToStartTypes: string | null;
  /** Whether the device holds an active widget push token and an active control push token. */
  hasWidgetToken: boolean;
  hasControlToken: boolean;
}
