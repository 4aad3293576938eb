import type { Clock } from '../lib/clock';
import { systemClock } from '../lib/clock';
import { apnsToken, type StandinAnswer } from './apns-answer';

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
 */

export type IosVersion = 17 | 18;
export type Environment = 'production' | 'sandbox';

/** What the Lock Screen shows of one activity. */
export interface ShownActivity {
  activityId: string;
  templateSlug: string;
  attributes: Record<string, string>;
  contentState: Record<string, string>;
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
  /** Push-to-starts the phone turned down (an `input-push-channel` on iOS 17, an unknown channel). */
  readonly refusedStarts: { activityId: string; reason: string }[] = [];
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

  owns(token: string): boolean {
    return token === this.deviceToken || token === this.pushToStartToken || [...this.updateTokens.values()].includes(token) || this.retired.has(token);
  }

  /** What APNs answers for a push to one of this phone's tokens, applying it when it arrives. */
  receive(token: string, headers: Record<string, string>, body: any, host: Environment): StandinAnswer | undefined {
    if (host !== this.environment) return { status: 400, reason: 'BadDeviceToken' };
    const retiredAt = this.retired.get(token);
    if (retiredAt !== undefined) return { status: 410, reason: 'Unregistered', timestamp: retiredAt };
    const aps = body.aps ?? {};
    if (token === this.deviceToken) {
      if (headers['apns-push-type'] === 'alert' && aps.alert) this.notifications.push({ title: aps.alert.title, body: aps.alert.body });
      return undefined;
    }
    if (headers['apns-push-type'] !== 'liveactivity') return undefined;
    if (token === this.pushToStartToken) return this.start(aps);
    const activityId = [...this.updateTokens].find(([, t]) => t === token)?.[0];
    const activity = activityId && this.activities.get(activityId);
    if (!activity) return undefined;
    if (activity.ended && activity.dismissalDate !== undefined && activity.dismissalDate <= this.clock.now() / 1000)
      return { status: 410, reason: 'Unregistered', timestamp: activity.dismissalDate * 1000 };
    this.apply(activity, aps);
    return undefined;
  }

  /** An update or end event, applied only when its timestamp is newer than the last one applied. */
  private apply(activity: ShownActivity, aps: any): void {
    if (typeof aps.timestamp !== 'number' || aps.timestamp <= activity.timestamp) {
      activity.ignored++;
      return;
    }
    activity.timestamp = aps.timestamp;
    if (aps['content-state']) activity.contentState = aps['content-state'];
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
