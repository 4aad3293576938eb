import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import { isoTime } from '../../../lib/clock';
import { HttpError } from '../../../lib/errors';
import { newId } from '../../../lib/ids';
import { groupByInstant, knownZones, offsetAt, parseWallTime } from '../../../lib/wall-time';
import type { NotificationSending, PreparedSend, SendInput, SendResult } from '../send/notification-sending';
import type { ScheduledSendRow } from './scheduled-sends.types';
import { notificationContent } from '../send/notification-content';
import { parseOptions } from '../releases/template-options';
import { scheduledSendsRepository } from './scheduled-sends.repository';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import { appsRepository } from '../../apps/apps.repository';

/** How far in the past a send time may be (a clock a little behind, a slow request) before it is refused. */
export const PAST_GRACE_MS = 60_000;
/** How far ahead a send may be scheduled. */
export const MAX_AHEAD_MS = 30 * 86_400_000;

/** What a part stores: the send with its template as it was at scheduling time. */
interface StoredSend {
  template: PreparedSend['template'];
  input: SendInput;
}

/** When a send goes out: one instant (`sendAt`), or a wall time in each device's zone (`sendAtLocal`). */
export type SendTime = { at: number } | { local: string };

// ISO 8601 with an offset or Z, as RFC 3339 writes it (seconds and fractions optional).
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * The send time a send names, or undefined for a send that goes now. 400 naming the field for
 * both at once, a malformed time, a `sendAt` more than a minute in the past or over 30 days ahead.
 * @example sendTimeOf({ sendAt: '2026-12-24T09:00:00+01:00' }, now) // { at: Date.parse('2026-12-24T08:00:00Z') }
 */
export function sendTimeOf(input: Pick<SendInput, 'sendAt' | 'sendAtLocal'>, now: number): SendTime | undefined {
  if (input.sendAt !== undefined && input.sendAtLocal !== undefined) throw new HttpError(400, 'sendAt and sendAtLocal cannot both be given: choose one instant, or one wall time in each device\'s zone');
  if (input.sendAtLocal !== undefined) {
    if (!parseWallTime(input.sendAtLocal)) throw new HttpError(400, `sendAtLocal must be a local date and time without offset, like 2026-12-24T09:00 (seconds optional): got ${JSON.stringify(input.sendAtLocal)}`);
    return { local: input.sendAtLocal };
  }
  if (input.sendAt === undefined) return undefined;
  const at = WITH_OFFSET.test(input.sendAt) ? Date.parse(input.sendAt) : Number.NaN;
  if (Number.isNaN(at)) throw new HttpError(400, `sendAt must be an ISO 8601 time with an offset or Z, like 2026-12-24T09:00:00+01:00: got ${JSON.stringify(input.sendAt)}`);
  checkWindow('sendAt', at, now);
  return { at };
}

function checkWindow(field: string, at: number, now: number): void {
  if (at < now - PAST_GRACE_MS) throw new HttpError(400, `${field} is more than a minute in the past (${isoTime(at)})`);
  if (at > now + MAX_AHEAD_MS) throw new HttpError(400, `${field} is more than 30 days ahead (${isoTime(at)}); schedule at most 30 days ahead`);
}

/** A `sendAtLocal` part's wall time (`2026-12-24T09:00`): where its zones' clocks stand at its instant; null for a `sendAt`. */
function wallTimeOf(part: ScheduledSendRow): string | null {
  if (part.zones === null) return null;
  const zone = (JSON.parse(part.zones) as string[])[0]!;
  return isoTime(part.dueAt + offsetAt(zone, part.dueAt)).slice(0, 16);
}

/** One part of a send to write: its due time and zones (null: every device). */
interface PlannedPart {
  dueAt: number;
  zones: string[] | null;
}

/**
 * Scheduled sends: `schedule` checks the send and stores one part per due instant; `sendDue` (run by
 * the scheduler) sends each part at its time, through the same fan-out as an immediate send;
 * `cancel` stops the parts not sent yet.
 */
export function scheduledSends(ctx: AppContext, sending: NotificationSending) {
  const repos = ctx.db.sql;

  /** The zones the app's devices are in now: those they reported, and the default zone for the others. */
  const reachableZones = async (appId: string) => {
    const app = await appsRepository(repos).find(appId);
    return new Set([...(await scheduledSendsRepository(repos).deviceZones(appId)), app?.defaultTimeZone ?? 'UTC']);
  };
  /** Whether a part (its zones; null: every device) may reach one of the app's devices now. */
  const mayReach = (zones: string[] | null, reachable: Set<string>) => zones === null || zones.some((z) => reachable.has(z));
  /** A send's `scheduledFor`: its earliest part that may reach a device now (a zone nobody is in would say nothing), else its earliest. */
  const firstDue = (parts: { dueAt: number; zones: string[] | null }[], reachable: Set<string>) => (parts.find((p) => mayReach(p.zones, reachable)) ?? parts[0]!).dueAt;

  /** The parts of a `sendAtLocal`: a part per instant the wall time falls at, over every zone a device may report. */
  const plan = async (appId: string, local: string, now: number): Promise<{ parts: PlannedPart[]; skipped: boolean; defaultZone: string }> => {
    const app = await appsRepository(repos).find(appId);
    const zones = [...knownZones(), ...(await reachableZones(appId))];
    const groups = groupByInstant(parseWallTime(local)!, zones);
    // Where the wall time has already passed (a minute's grace) that zone is skipped: a 9:00 reminder does not arrive at 15:00.
    const ahead = groups.filter((g) => g.instant >= now - PAST_GRACE_MS);
    if (ahead.length === 0) throw new HttpError(400, `sendAtLocal ${local} is more than a minute in the past in every time zone`);
    checkWindow('sendAtLocal', ahead[0]!.instant, now);
    return { parts: ahead.map((g) => ({ dueAt: g.instant, zones: g.zones })), skipped: ahead.length < groups.length, defaultZone: app?.defaultTimeZone ?? 'UTC' };
  };

  /**
   * The zones filter of a part: its zones, a device without one counted in the app's default zone.
   * A zone reported now that the runtime lists under another name (`Asia/Calcutta` beside
   * `Asia/Kolkata`, `US/Pacific`) had no part planned unless a device reported it by scheduling
   * time: it joins the part whose instant its wall time falls at. `reachable`: the app's zones now,
   * when the caller has them.
   */
  const zonesOf = async (part: ScheduledSendRow, reachable?: Set<string>) => {
    if (part.zones === null) return undefined;
    const app = await appsRepository(repos).find(part.appId);
    const zones = JSON.parse(part.zones) as string[];
    // The part's wall time is where its zones' clocks stand at its instant: a zone whose clock stands there too is due now.
    const offset = offsetAt(zones[0]!, part.dueAt);
    const known = new Set(knownZones());
    for (const zone of reachable ?? (await reachableZones(part.appId)))
      if (!known.has(zone) && !zones.includes(zone) && offsetAt(zone, part.dueAt) === offset) zones.push(zone);
    return { zones, defaultZone: app?.defaultTimeZone ?? 'UTC' };
  };

  const preparedOf = (part: ScheduledSendRow): PreparedSend => ({ appId: part.appId, ...(JSON.parse(part.send) as StoredSend) });

  /**
   * The parts of a send that reach a device, by due time, as the message status shows them and the
   * scheduled list dates them: a waiting part counts the devices it reaches now (its zones with
   * those the runtime lists under another name), a part done the devices it had.
   */
  const shownParts = async (parts: ScheduledSendRow[], reachable: Set<string>) => {
    const shown: { dueAt: string; status: 'scheduled' | 'sent' | 'cancelled' | 'expired' | 'failed'; deliveries: number; zones: string[] | null }[] = [];
    for (const part of parts) {
      const zones = await zonesOf(part, reachable);
      // A waiting part none of whose zones any device reported (nor the app's default) reaches nobody: not counted device by device.
      const devices = part.status !== 'waiting' ? (part.devices ?? 0) : mayReach(zones?.zones ?? null, reachable) ? await sending.reach(preparedOf(part), zones) : 0;
      if (devices > 0) shown.push({ dueAt: isoTime(part.dueAt), status: part.status === 'waiting' ? 'scheduled' : part.status, deliveries: devices, zones: zones?.zones ?? null });
    }
    return shown;
  };

  /** Queues a due part's deliveries in `tx` (the claim's transaction), or lets it expire when the server comes back past its ttl. */
  const goOut = async (tx: Tx, part: ScheduledSendRow, now: number): Promise<void> => {
    const prepared = preparedOf(part);
    const ttlSeconds = prepared.input.ttlSeconds ?? parseOptions(prepared.template.options).ttlSeconds ?? ctx.config.notifications.ttl_seconds;
    // Late rather than lost, but not past the notification's life (at least a minute's lateness is always allowed: ttl 0 too).
    if (now > part.dueAt + Math.max(ttlSeconds * 1000, PAST_GRACE_MS)) {
      ctx.logger.warn('scheduled send expired before it could go', { messageId: part.publicId, dueAt: isoTime(part.dueAt) });
      await scheduledSendsRepository(tx).finish(part.id, 'expired', 0);
      return;
    }
    // Checked at scheduling, so only a rule made stricter since fails here: the part is marked, not retried each second ahead of the others.
    try {
      notificationContent(prepared.template, prepared.input, { messageId: part.publicId, now: part.dueAt, defaultTtlSeconds: ctx.config.notifications.ttl_seconds });
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      ctx.logger.error('scheduled send could not be rendered when due', { messageId: part.publicId, error: e.detail });
      await scheduledSendsRepository(tx).finish(part.id, 'failed', 0);
      return;
    }
    const deliveries = await sending.fanOut(tx, prepared, { messageId: part.publicId, now, at: part.dueAt, timeZones: await zonesOf(part) });
    await scheduledSendsRepository(tx).finish(part.id, 'sent', deliveries);
  };

  return {
    /**
     * Checks the send (release, template, content, time) and stores its parts; nothing is queued
     * yet. `messageCount`: the devices it would reach now (who receives it is decided when it goes).
     */
    async schedule(appId: string, input: SendInput): Promise<SendResult> {
      const now = ctx.clock.now();
      const time = sendTimeOf(input, now)!;
      const planned = 'at' in time ? { parts: [{ dueAt: time.at, zones: null }], skipped: false, defaultZone: '' } : await plan(appId, time.local, now);
      const { parts } = planned;
      const messageId = newId('msg', now);
      const { sendAt: _at, sendAtLocal: _local, ...send } = input;
      const prepared = await sending.prepare(appId, send, messageId, parts[0]!.dueAt);
      const stored = JSON.stringify({ template: prepared.template, input: send } satisfies StoredSend);
      await scheduledSendsRepository(repos).insert(
        parts.map((p) => ({ publicId: messageId, appId, dueAt: p.dueAt, zones: p.zones && JSON.stringify(p.zones), send: stored, createdAt: now })),
      );
      // A sendAtLocal whose wall time has passed in some zones reaches only the zones it plans for.
      const timeZones = planned.skipped ? { zones: parts.flatMap((p) => p.zones ?? []), defaultZone: planned.defaultZone } : undefined;
      const scheduledFor = firstDue(parts, await reachableZones(appId));
      return { messageCount: await sending.reach(prepared, timeZones), messageId, scheduledFor: isoTime(scheduledFor) };
    },

    /**
     * Sends the parts due at `now`, earliest first, each claimed and fanned out in one transaction
     * (on PostgreSQL under SKIP LOCKED): a crash between the two leaves the part waiting, so it goes
     * once after the restart. Reads only due rows (the due index): waiting parts cost nothing.
     */
    async sendDue(now: number, stopped: () => boolean = () => false): Promise<number> {
      let sent = 0;
      // Most seconds nothing is due: one indexed read, no transaction (no write lock taken on SQLite).
      if (!(await scheduledSendsRepository(repos).anyDue(now))) return 0;
      while (!stopped()) {
        const went = await ctx.db.write(async (tx) => {
          const part = await scheduledSendsRepository(tx).claimDue(now);
          if (part) await goOut(tx, part, now);
          return part !== undefined;
        });
        if (!went) break;
        sent++;
      }
      return sent;
    },

    /**
     * Cancels what of the app's send `publicId` has not gone: its parts still waiting, and the
     * deliveries queued (or held) that no worker has taken yet, of a scheduled send or one sent at
     * once. 404 for an unknown id or another app's; 409 when nothing was left to cancel. Answers the
     * deliveries cancelled: the devices the waiting parts would have reached now, plus the queued
     * deliveries dropped (their status: `dropped`, reason `cancelled`; the message marked cancelled).
     */
    async cancel(appId: string, publicId: string): Promise<{ messageId: string; cancelled: number }> {
      const parts = await scheduledSendsRepository(repos).ofMessage(appId, publicId);
      if (parts.length === 0 && !(await notificationMessagesRepository(repos).find(appId, publicId))) throw new HttpError(404, 'message not found');
      let cancelled = 0;
      let stopped = false;
      for (const part of parts.filter((p) => p.status === 'waiting')) {
        const devices = await sending.reach(preparedOf(part), await zonesOf(part));
        // `finish` changes only a part still waiting: one the due job claimed meanwhile has gone.
        if (await scheduledSendsRepository(repos).finish(part.id, 'cancelled', devices)) {
          cancelled += devices;
          stopped = true;
        }
      }
      // Looked up after the parts: one that went meanwhile has its deliveries queued by now.
      const message = await notificationMessagesRepository(repos).find(appId, publicId);
      const dropped = message ? await notificationMessagesRepository(repos).cancelWaiting(message.messageId, ctx.clock.now()) : 0;
      if (!stopped && dropped === 0) throw new HttpError(409, 'nothing left to cancel: every delivery of the message has gone or was cancelled');
      return { messageId: publicId, cancelled: cancelled + dropped };
    },

    /**
     * The app's sends still waiting, one entry per message: when its waiting parts the status shows
     * go (all its waiting parts when it shows none), and its template.
     */
    async waiting(appId: string): Promise<{ messageId: string; templateSlug: string; nextDueAt: string; lastDueAt: string; local: boolean; localTime: string | null }[]> {
      const reachable = await reachableZones(appId);
      const byMessage = new Map<string, ScheduledSendRow[]>();
      for (const part of await scheduledSendsRepository(repos).waiting(appId, 1000)) byMessage.set(part.publicId, [...(byMessage.get(part.publicId) ?? []), part]);
      const entries = await Promise.all(
        [...byMessage.values()].map(async (all) => {
          const shown = (await shownParts(all, reachable)).map((p) => p.dueAt);
          const dues = shown.length > 0 ? shown : all.map((p) => isoTime(p.dueAt));
          return {
            messageId: all[0]!.publicId,
            templateSlug: (JSON.parse(all[0]!.send) as StoredSend).template.slug,
            nextDueAt: dues[0]!,
            lastDueAt: dues.at(-1)!,
            local: all[0]!.zones !== null,
            localTime: wallTimeOf(all[0]!),
          };
        }),
      );
      return entries.sort((a, b) => a.nextDueAt.localeCompare(b.nextDueAt));
    },

    /**
     * What the message status shows of a scheduled send (undefined: not one): its parts with
     * devices, by due time; `partStates`: every part's state, shown or not (the list's `state`).
     */
    async status(appId: string, publicId: string) {
      const parts = await scheduledSendsRepository(repos).ofMessage(appId, publicId);
      if (parts.length === 0) return undefined;
      const first = preparedOf(parts[0]!);
      const shown = await shownParts(parts, await reachableZones(appId));
      const sum = (status: string) => shown.filter((p) => p.status === status).reduce((n, p) => n + p.deliveries, 0);
      return {
        templateSlug: first.template.slug,
        releaseVersion: first.template.version,
        createdAt: parts[0]!.createdAt,
        schedule: { scheduledFor: shown[0]?.dueAt ?? isoTime(parts[0]!.dueAt), scheduled: sum('scheduled'), cancelled: sum('cancelled'), parts: shown },
        partStates: parts.map((p) => p.status),
      };
    },
  };
}

export type ScheduledSends = ReturnType<typeof scheduledSends>;
