import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import { HttpError } from '../../../lib/errors';
import type { AudienceFilter, SendFilter } from '../../devices/devices.types';
import { releaseNotFound, templateNotFound } from '../releases/releases.service';
import type { ReleaseRow, TemplateRow } from '../releases/releases.types';
import type { SendAdditions } from './notification-content';
import { queueSend, sendContents } from './send-fan-out';
import { devicesRepository } from '../../devices/devices.repository';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import { releasesRepository } from '../releases/releases.repository';
import { throttleFrom } from '../throttle/throttle';

export interface SendInput extends SendAdditions {
  templateSlug: string;
  variables?: Record<string, string>;
  targetUsers?: string[];
  /** Instead of `targetUsers`: the devices whose end user's tags and platform match (issue 38). */
  audience?: AudienceFilter;
  testReleaseVersion?: number;
  /** An ISO 8601 time with an offset or Z: the whole send goes out then (scheduled-sends.ts). */
  sendAt?: string;
  /** A local date-time without offset: each device at that wall time in its own zone (scheduled-sends.ts). */
  sendAtLocal?: string;
  /** Spreads the deliveries evenly at this many a minute (throttle/throttle.ts). */
  throttlePerMinute?: number;
}

/** What a send answers: the deliveries queued, and the id to follow them by (null when nothing was queued). */
export interface SendResult {
  messageCount: number;
  messageId: string | null;
  /** A scheduled send's first due time (ISO 8601). */
  scheduledFor?: string;
}

/** A send checked and its template fixed: what goes out now, or is stored until its time. */
export interface PreparedSend {
  appId: string;
  /** The template as the release had it when the send was made. */
  template: TemplateRow;
  input: SendInput;
}

/**
 * The two halves of a notification send, shared by the immediate send and a scheduled send's due
 * time: `prepare` picks the release and template and checks the content; `fanOut` renders it and
 * queues one delivery per device the send reaches at that moment.
 */
export function notificationSending(ctx: AppContext) {
  const store = ctx.db;

  /** The Live release, or the Testing release a test send names. */
  const releaseFor = async (appId: string, testReleaseVersion: number | undefined): Promise<ReleaseRow> => {
    if (testReleaseVersion === undefined) {
      const live = await releasesRepository(store.sql).findLive(appId);
      if (!live) throw new HttpError(422, 'app has no live release');
      return live;
    }
    const release = await releasesRepository(store.sql).find(appId, testReleaseVersion);
    if (!release) throw releaseNotFound();
    if (release.status !== 'Testing') throw new HttpError(422, 'release is not in Testing status');
    return release;
  };

  // The template's own text and each localization, rendered once (send-fan-out.ts).
  const contentsOf = (prepared: PreparedSend, messageId: string, at: number) =>
    sendContents(prepared.template, prepared.input, { messageId, now: at, defaultTtlSeconds: ctx.config.notifications.ttl_seconds });

  /** Who a send reaches (a `sendAtLocal` part: only devices in its zones). */
  const audience = (prepared: PreparedSend, timeZones?: SendFilter['timeZones']): SendFilter => ({
    endUserIds: prepared.input.targetUsers && [...new Set(prepared.input.targetUsers)],
    audience: prepared.input.audience,
    testersOnly: prepared.input.testReleaseVersion !== undefined,
    timeZones,
  });

  return {
    /**
     * The release and template of a send, its content checked whole (rendered as at `at`) before
     * anything is written: an invalid send queues and schedules nothing.
     */
    async prepare(appId: string, input: SendInput, messageId: string, at: number): Promise<PreparedSend> {
      const release = await releaseFor(appId, input.testReleaseVersion);
      const template = await releasesRepository(store.sql).findTemplate(appId, release.version, input.templateSlug);
      if (!template) throw templateNotFound(input.templateSlug, release.version);
      const prepared = { appId, template, input };
      contentsOf(prepared, messageId, at);
      return prepared;
    },

    /**
     * Renders the send (expiry counted from `at`, its due time) and queues it in `tx` for every
     * valid device it reaches now; a scheduled send's later part adds its deliveries to the message
     * its first part wrote. Answers the number of deliveries queued (0: no message row written).
     */
    async fanOut(tx: Tx, prepared: PreparedSend, options: { messageId: string; now: number; at?: number; timeZones?: SendFilter['timeZones'] }): Promise<number> {
      const contents = contentsOf(prepared, options.messageId, options.at ?? options.now);
      const { appId } = prepared;
      // A later part of a sendAtLocal: its messages rows (content rendered for its own due time) are variants of the first part's.
      const earlier = options.at === undefined ? undefined : await notificationMessagesRepository(tx).find(appId, options.messageId);
      const perMinute = prepared.input.throttlePerMinute;
      const throttle = perMinute === undefined ? undefined : await throttleFrom(tx, earlier?.messageId);
      const queued = await queueSend(ctx, tx, {
        appId,
        publicId: options.messageId,
        contents,
        audience: audience(prepared, options.timeZones),
        now: options.now,
        mainMessageId: earlier?.messageId,
      });
      if (throttle && queued.messageCount > 0) await throttle.spread(appId, options.messageId, options.now, perMinute!);
      return queued.messageCount;
    },

    /** How many devices the send (or one of its parts) would reach now. */
    async reach(prepared: PreparedSend, timeZones?: SendFilter['timeZones']): Promise<number> {
      let count = 0;
      for (const _ of await devicesRepository(store.sql).sendTargets(prepared.appId, audience(prepared, timeZones))) count++;
      return count;
    },
  };
}

export type NotificationSending = ReturnType<typeof notificationSending>;
