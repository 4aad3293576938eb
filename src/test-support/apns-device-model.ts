import type { Clock } from '../lib/clock';
import { systemClock } from '../lib/clock';
import { apnsToken, type StandinAnswer } from './apns-answer';
import { LiveActivityBudgetModel } from './apns-live-activity-budget';

/**
 * A small model of iPhones behind the APNs stand-in, with the platform rules of FACTS.md that
 * decide what a user sees, so tests assert on what the phones show rather than on what was sent:
 *
 * - A push-to-start (`event: start` to the phone's push-to-start token, for the attributes type the
 *   app declares) puts an activity on the Lock Screen. iOS 17 then issues the activity's own update
 *   token; iOS 18 issues it only when the payload asks with `"input-push-token": 1`.
 * - An update or end reaches an activity only through that update token, and is ignored unless its
 *   `timestamp` is newer than the last one the activity applied.
 * - An ended activity stays on the Lock Screen until its `dismissal-date` (absent: the system's
 *   default, modelled as 4 hours; now or in the past: removed at once). Once removed, its update
 *   token is gone: APNs answers 410 with the dismissal time.
 * - Every token belongs to one environment: sent to the other environment's host it is refused with
 *   400 BadDeviceToken. A token the phone retired answers 410 Unregistered with the `timestamp`
 *   (ms) it was retired at.
 * - Broadcast channels (iOS 18+, docs/broadcast-channels.md): an activity started on a channel, by
 *   the app (`startOnChannel`, ActivityKit `.channel(id)`) or by a push-to-start carrying
 *   `input-push-channel`, takes the channel's broadcasts with the same timestamp and end rules. An
 *   iOS 17 phone does not start an activity from such a push-to-start (Apple: "the Live Activity
 *   will not start"), and has no `.channel` push type.
 * - Apple's budget of priority-10 updates per activity (apns-live-activity-budget.ts): past it, an
 *   update is dropped while APNs answers 200; priority 5 is not budgeted. Off unless a test sets it.
 * - An app's own ActivityAttributes type (`declareAttributesType`, issue 39) has its own
 *   push-to-start token; ActivityKit decodes `attributes` and `content-state` into the app's
 *   Codable struct with JSONDecoder's defaults (a `Date` from a number of seconds since
 *   2001-01-01, unknown keys ignored) and drops, silently, a push that does not decode.
 */

export type IosVersion = 17 | 18;
export type Environment = 'production' | 'sandbox';

/** A property of an app's Codable struct, as Swift declares it (`var stops: [String]?`). */
export interface SwiftProperty {
  type: 'String' | 'Int' | 'Double' | 'Bool' | 'Date';
  optional?: boolean;
  array?: boolean;
}

/** An app's ActivityAttributes struct: its stored properties and those of its ContentState. */
export interface SwiftAttributes {
  attributes: Record<string, SwiftProperty>;
  contentState: Record<string, SwiftProperty>;
}

/** Swift's reference date (2001-01-01T00:00:00Z) in Unix ms. */
const REFERENCE_DATE_MS = Date.UTC(2001, 0, 1);

/**
 * A JSON object decoded as JSONDecoder does by default into `struct`'s properties (a Date as Unix
 * ms here, for assertions), or the reason it fails; keys the struct does not declare are ignored.
 */
export function decodeSwift(json: unknown, struct: Record<string, SwiftProperty>): { value: Record<string, unknown> } | { error: string } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: 'not an object' };
  const one = (p: SwiftProperty, v: unknown): unknown => {
    switch (p.type) {
      case 'String':
        return typeof v === 'string' ? v : undefined;
      case 'Int':
        return Number.isInteger(v) ? v : undefined;
      case 'Double':
        return typeof v === 'number' ? v : undefined;
      case 'Bool':
        return typeof v === 'boolean' ? v : undefined;
      case 'Date':
        return typeof v === 'number' ? REFERENCE_DATE_MS + v * 1000 : undefined;
    }
  };
  const value: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(struct)) {
    const v = (json as Record<string, unknown>)[name];
    if (v === undefined || v === null) {
      if (p.optional) continue;
      return { error: `keyNotFound ${name}` };
    }
    const decoded = p.array ? (Array.isArray(v) ? v.map((item) => one(p, item)) : undefined) : one(p, v);
    if (decoded === undefined || (Array.isArray(decoded) && decoded.includes(undefined))) return { error: `typeMismatch ${name}` };
    value[name] = decoded;
  }
  return { value };
}

/** What the Lock Screen shows of one activity. */
export interface ShownActivity {
  activityId: string;
  templateSlug: string;
  /** Strings under IsletActivityAttributes; an app-defined type's decoded values (dates as Unix ms). */
  attributes: Record<string, unknown>;
  contentState: Record<string, unknown>;
  /** The app-defined ActivityAttributes type, when the activity is of one. */
  attributesType?: string;
  /** The APNs timestamp (seconds) of the last event applied. */
  timestamp: number;
  staleDate?: number;
  relevanceScore?: number;
  ended: boolean;
  /** Unix seconds, when ended with a dismissal date. */
  dismissalDate?: number;
  /** Alerts that lit the screen with this activity's events. */
  alerts: { title: string; body: string; sound?: string }[];
  /** Events the phone ignored because their timestamp was not newer. */
  ignored: number;
  /** The broadcast channel the activity listens to, when it was started on one. */
  channelId?: string;
}

/** iOS's default dismissal of an ended activity without a dismissal date (up to 4 hours). */
const DEFAULT_DISMISSAL_S = 4 * 3600;
export const ATTRIBUTES_TYPE = 'IsletActivityAttributes';

export class ModelPhone {
  deviceToken = apnsToken();
  pushToStartToken = apnsToken();
  /** Activities by id, as started on this phone (ended ones included until dismissed). */
  readonly activities = new Map<string, ShownActivity>();
  /** The update token the phone issued per activity: what `pushTokenUpdates` hands the app. */
  readonly updateTokens = new Map<string, string>();
  /** Alert notifications received (to the device token). */
  readonly notifications: { title: string; body: string }[] = [];
  /** Alert and background pushes received at the device token, headers and payload as the app gets them. */
  readonly pushes: { headers: Record<string, string>; payload: any }[] = [];
  /** Push-to-starts the phone turned down (an `input-push-channel` on iOS 17, an unknown channel, a payload that does not decode). */
  readonly refusedStarts: { activityId: string; reason: string }[] = [];
  /** The app's own ActivityAttributes types: the push-to-start token iOS issued for each, and its struct. */
  readonly attributesTypes = new Map<string, { token: string; struct: SwiftAttributes }>();
  /** The Live Activity update budget iOS keeps (`budget.budget = { priority10PerHour: 2 }` turns it on). */
  readonly budget = new LiveActivityBudgetModel();
  private readonly retired = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly ios: IosVersion,
    readonly environment: Environment,
    private readonly clock: Clock,
    private readonly channelExists: (environment: Environment, channelId: string) => boolean = () => true,
  ) {}

  /**
   * The app starts an activity subscribed to a broadcast channel (ActivityKit
   * `pushType: .channel(id)`, iOS 18+). Throws as ActivityKit fails when it cannot.
   */
  startOnChannel(channelId: string, activity: { activityId: string; templateSlug?: string; attributes?: Record<string, string>; contentState?: Record<string, string> }): ShownActivity {
    if (this.ios < 18) throw new Error('the channel push type needs iOS 18');
    if (!this.channelExists(this.environment, channelId)) throw new Error(`${channelId} is not a valid channel`);
    return this.show({
      activityId: activity.activityId,
      templateSlug: activity.templateSlug ?? '',
      attributes: activity.attributes ?? {},
      contentState: activity.contentState ?? {},
      timestamp: Math.floor(this.clock.now() / 1000),
      channelId,
    });
  }

  /** A broadcast on a channel: applied to each activity of this phone that listens to it. */
  receiveBroadcast(channelId: string, body: any): void {
    const aps = body.aps ?? {};
    // iOS ignores pushes that arrive after the activity ended.
    for (const activity of this.lockScreen()) if (activity.channelId === channelId && !activity.ended) this.apply(activity, aps);
  }

  /** The activities the Lock Screen shows now. */
  lockScreen(): ShownActivity[] {
    const now = this.clock.now() / 1000;
    return [...this.activities.values()].filter((a) => !a.ended || (a.dismissalDate ?? Number.POSITIVE_INFINITY) > now);
  }

  /** One activity as shown, or undefined when the phone never got it or has dismissed it. */
  shows(activityId: string): ShownActivity | undefined {
    return this.lockScreen().find((a) => a.activityId === activityId);
  }

  /**
   * The user removes the activity (or the system does): its update token is retired now, so APNs
   * answers 410 with this moment for it.
   */
  dismiss(activityId: string): void {
    this.activities.delete(activityId);
    const token = this.updateTokens.get(activityId);
    if (token) this.retired.set(token, this.clock.now());
  }

  /** The device token rotates (e.g. a restore onto a new phone): the old one is retired now; returns the new one. */
  rotateDeviceToken(): string {
    this.retired.set(this.deviceToken, this.clock.now());
    this.deviceToken = apnsToken();
    return this.deviceToken;
  }

  /** The app declares an ActivityAttributes type of its own; returns the push-to-start token iOS issues for it. */
  declareAttributesType(name: string, struct: SwiftAttributes): string {
    const token = apnsToken();
    this.attributesTypes.set(name, { token, struct });
    return token;
  }

  owns(token: string): boolean {
    return token === this.deviceToken || token === this.pushToStartToken || [...this.attributesTypes.values()].some((t) => t.token === token) || [...this.updateTokens.values()].includes(token) || this.retired.has(token);
  }

  /** What APNs answers for a push to one of this phone's tokens, applying it when it arrives. */
  receive(token: string, headers: Record<string, string>, body: any, host: Environment): StandinAnswer | undefined {
    if (host !== this.environment) return { status: 400, reason: 'BadDeviceToken' };
    const retiredAt = this.retired.get(token);
    if (retiredAt !== undefined) return { status: 410, reason: 'Unregistered', timestamp: retiredAt };
    const aps = body.aps ?? {};
    if (token === this.deviceToken) {
      if (headers['apns-push-type'] === 'alert' || headers['apns-push-type'] === 'background') this.pushes.push({ headers, payload: body });
      if (headers['apns-push-type'] === 'alert' && aps.alert) this.notifications.push({ title: aps.alert.title, body: aps.alert.body });
      return undefined;
    }
    if (headers['apns-push-type'] !== 'liveactivity') return undefined;
    if (token === this.pushToStartToken) return this.start(aps);
    const declared = [...this.attributesTypes].find(([, t]) => t.token === token);
    if (declared) return this.startTyped(declared[0], declared[1].struct, aps);
    const activityId = [...this.updateTokens].find(([, t]) => t === token)?.[0];
    const activity = activityId && this.activities.get(activityId);
    if (!activity) return undefined;
    if (activity.ended && activity.dismissalDate !== undefined && activity.dismissalDate <= this.clock.now() / 1000)
      return { status: 410, reason: 'Unregistered', timestamp: activity.dismissalDate * 1000 };
    // Over the budget the system drops the update; APNs still answers 200.
    if (aps.event === 'update' && !this.budget.admits(activity.activityId, headers['apns-priority'], this.clock.now(), aps)) return undefined;
    this.apply(activity, aps);
    return undefined;
  }

  /** An update or end event, applied only when its timestamp is newer than the last one applied. */
  private apply(activity: ShownActivity, aps: any): void {
    if (typeof aps.timestamp !== 'number' || aps.timestamp <= activity.timestamp) {
      activity.ignored++;
      return;
    }
    const struct = activity.attributesType ? this.attributesTypes.get(activity.attributesType)?.struct : undefined;
    if (struct && aps['content-state']) {
      // ActivityKit drops an update whose content-state does not decode.
      const decoded = decodeSwift(aps['content-state'], struct.contentState);
      if ('error' in decoded) return void activity.ignored++;
      activity.timestamp = aps.timestamp;
      activity.contentState = decoded.value;
    } else {
      activity.timestamp = aps.timestamp;
      if (aps['content-state']) activity.contentState = aps['content-state'];
    }
    if (aps['stale-date'] !== undefined) activity.staleDate = aps['stale-date'];
    if (aps['relevance-score'] !== undefined) activity.relevanceScore = aps['relevance-score'];
    if (aps.alert && aps.event === 'update') activity.alerts.push(aps.alert);
    if (aps.event === 'end') {
      activity.ended = true;
      activity.dismissalDate = aps['dismissal-date'] ?? Math.floor(this.clock.now() / 1000) + DEFAULT_DISMISSAL_S;
    }
  }

  private start(aps: any): StandinAnswer | undefined {
    if (aps.event !== 'start' || aps['attributes-type'] !== ATTRIBUTES_TYPE) return undefined;
    const activityId = String(aps.attributes?.activityId ?? '');
    if (this.activities.has(activityId)) return undefined;
    const channelId = aps['input-push-channel'];
    if (channelId !== undefined) {
      // Apple: sent to a device that does not run iOS 18 or later, the Live Activity will not start.
      if (this.ios < 18) return void this.refusedStarts.push({ activityId, reason: 'input-push-channel needs iOS 18' });
      if (typeof channelId !== 'string' || !this.channelExists(this.environment, channelId))
        return void this.refusedStarts.push({ activityId, reason: 'not a valid channel' });
    }
    this.show({
      activityId,
      templateSlug: String(aps.attributes?.templateSlug ?? ''),
      attributes: aps.attributes?.values ?? {},
      contentState: aps['content-state'] ?? {},
      timestamp: aps.timestamp,
      ...(aps['stale-date'] !== undefined ? { staleDate: aps['stale-date'] } : {}),
      ...(aps['relevance-score'] !== undefined ? { relevanceScore: aps['relevance-score'] } : {}),
      alerts: aps.alert ? [aps.alert] : [],
      ...(channelId !== undefined ? { channelId } : {}),
    });
    // iOS 18 hands the app an update token for a pushed activity only when the payload asks for it.
    if (this.ios === 17 || aps['input-push-token'] === 1) this.updateTokens.set(activityId, apnsToken());
    return undefined;
  }

  /** A push-to-start to the token of an app-defined type: shown only when it names that type and decodes into its struct. */
  private startTyped(type: string, struct: SwiftAttributes, aps: any): StandinAnswer | undefined {
    if (aps.event !== 'start' || aps['attributes-type'] !== type) return undefined;
    // The app's struct may declare `isletActivityId` to report the activity's push token to Islet.
    const activityId = String(aps.attributes?.isletActivityId ?? '');
    if (this.activities.has(activityId)) return undefined;
    const attributes = decodeSwift(aps.attributes, struct.attributes);
    const contentState = decodeSwift(aps['content-state'], struct.contentState);
    if ('error' in attributes || 'error' in contentState) {
      return void this.refusedStarts.push({ activityId, reason: `does not decode: ${'error' in attributes ? attributes.error : (contentState as { error: string }).error}` });
    }
    const channelId = aps['input-push-channel'];
    if (channelId !== undefined && (this.ios < 18 || !this.channelExists(this.environment, channelId)))
      return void this.refusedStarts.push({ activityId, reason: 'cannot follow the channel' });
    this.show({
      ...(channelId !== undefined ? { channelId } : {}),
      activityId,
      templateSlug: '',
      attributesType: type,
      attributes: attributes.value,
      contentState: contentState.value,
      timestamp: aps.timestamp,
      alerts: aps.alert ? [aps.alert] : [],
    });
    if (this.ios === 17 || aps['input-push-token'] === 1) this.updateTokens.set(activityId, apnsToken());
    return undefined;
  }

  private show(activity: Omit<ShownActivity, 'ended' | 'ignored' | 'alerts'> & { alerts?: ShownActivity['alerts'] }): ShownActivity {
    const shown: ShownActivity = { alerts: [], ...activity, ended: false, ignored: 0 };
    this.activities.set(shown.activityId, shown);
    return shown;
  }
}

/** The phones behind one or more stand-ins (a production and a sandbox host share them). */
export class PhoneFleet {
  readonly phones: ModelPhone[] = [];
  /** Per environment, whether a channel id exists there (told by each stand-in's channel registry). */
  private readonly channels = new Map<Environment, (channelId: string) => boolean>();

  constructor(private readonly clock: Clock = systemClock) {}

  add(name: string, options: { ios?: IosVersion; environment?: Environment } = {}): ModelPhone {
    const exists = (environment: Environment, channelId: string) => this.channels.get(environment)?.(channelId) ?? false;
    const phone = new ModelPhone(name, options.ios ?? 18, options.environment ?? 'production', this.clock, exists);
    this.phones.push(phone);
    return phone;
  }

  /** A stand-in says which channels exist in its environment. */
  knowChannels(environment: Environment, exists: (channelId: string) => boolean): void {
    this.channels.set(environment, exists);
  }

  /** A broadcast accepted on a channel reaches the phones of that environment listening to it. */
  broadcast(channelId: string, body: unknown, host: Environment): void {
    for (const phone of this.phones) if (phone.environment === host) phone.receiveBroadcast(channelId, body);
  }

  /** The answer for a push that passed the stand-in's request checks, or undefined for 200 (unknown tokens too). */
  receive(token: string, headers: Record<string, string>, body: unknown, host: Environment): StandinAnswer | undefined {
    return this.phones.find((p) => p.owns(token))?.receive(token, headers, body, host);
  }
}
