import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import { HttpError } from '../../../lib/errors';
import type { NotificationContent } from '../../delivery/message-content';
import type { SendTarget } from '../../devices/devices.types';
import { type DevicesRepository, devicesRepository } from '../../devices/devices.repository';
import { bestLocalization, parseLocalizations } from './localizations';
import { notificationContent, type SendAdditions } from './notification-content';
import type { TemplateRow } from '../releases/releases.types';
import { parseOptions } from '../releases/template-options';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import { sendLimits, type LimitedTarget } from '../limits/send-limits';

/** What a fan-out queued: the deliveries, and the public id to follow them by (null when nothing was queued). */
export interface QueuedSend {
  messageCount: number;
  messageId: string | null;
}

/** A send's texts, each rendered once: the template's own, and one per localization by canonical tag. */
export interface SendContents {
  own: NotificationContent;
  localized: Map<string, NotificationContent>;
}

/** Which devices a send goes to (devices repository's sendTargets filter). */
export type SendAudience = Parameters<DevicesRepository['sendTargets']>[1];

/**
 * Deliveries of one language buffered before they are written: a multiple of both databases'
 * insert batch (outbox repository), so a localized send writes in as few statements as a plain one
 * while holding at most this many rows per language.
 */
const LOCALE_BATCH = 500;

/**
 * Renders a send's template once in its own text and once per localization (a part a localization
 * leaves out is the template's own), checking each whole: a localization the platforms would refuse
 * once rendered is a 400 naming it, before anything is written.
 * @example sendContents(template, { variables: { name: 'Ada' } }, { messageId: 'msg_…', now, defaultTtlSeconds: 2419200 })
 */
export function sendContents(template: TemplateRow, send: SendAdditions & { variables?: Record<string, string> }, meta: { messageId: string; now: number; defaultTtlSeconds: number }): SendContents {
  const own = notificationContent(template, send, meta);
  const localized = new Map<string, NotificationContent>();
  const options = parseOptions(template.options);
  for (const [tag, texts] of Object.entries(parseLocalizations(template.localizations))) {
    const variant: TemplateRow = {
      ...template,
      title: texts.title ?? template.title,
      body: texts.body ?? template.body,
      options: texts.subtitle === undefined ? template.options : JSON.stringify({ ...options, subtitle: texts.subtitle }),
    };
    try {
      // Web Push shows the language the text is in (`lang`); the template's own text names none.
      localized.set(tag, { ...notificationContent(variant, send, meta), lang: tag });
    } catch (e) {
      if (e instanceof HttpError) throw new HttpError(e.status, `localizations.${tag}: ${e.detail}`, e.headers, e.extensions);
      throw e;
    }
  }
  return { own, localized };
}

/**
 * The fan-out of a send, in the caller's transaction `tx`: one delivery per device of `audience`,
 * each pointing at the content of its locale's best localization (or the template's own text).
 * Each content used is one `messages` row; the first is the one `publicId` names, the others are
 * its variants, so the public id and its status cover the whole send. A template without
 * localizations streams every delivery into one message, as it always did. Nothing to deliver:
 * no message at all (it would only clutter the outbox). `mainMessageId`: a scheduled send's later
 * part, whose messages rows become variants of the first part's.
 * @example await ctx.db.write((tx) => queueSend(ctx, tx, { appId, publicId, contents, audience: {}, now }))
 */
export async function queueSend(
  ctx: AppContext,
  tx: Tx,
  input: { appId: string; publicId: string; contents: SendContents; audience: SendAudience; now: number; mainMessageId?: number },
): Promise<QueuedSend> {
  const { appId, publicId, contents, now } = input;
  let mainMessageId = input.mainMessageId;
  /** A messages row the send wrote: the one its public id names, or a variant of it. */
  const register = async (messageId: number) => {
    if (mainMessageId === undefined) {
      mainMessageId = messageId;
      await notificationMessagesRepository(tx).insert(publicId, appId, messageId);
    } else await notificationMessagesRepository(tx).insertVariant(mainMessageId, messageId);
  };
  const targets = await devicesRepository(tx).sendTargets(appId, input.audience);
  // Quiet hours and frequency caps (issue 48): decided a chunk of devices at a time, when any apply.
  const limits = await sendLimits(tx, appId, contents.own, now);
  const chunks = limits && limitedChunks(targets, limits);
  if (contents.localized.size === 0 && chunks) {
    let messageId: number | undefined;
    let messageCount = 0;
    for await (const chunk of chunks) {
      if (messageId !== undefined) messageCount += await ctx.outbox.append(tx, { appId, messageId, targets: chunk, now });
      else {
        const queued = await ctx.outbox.enqueue(tx, { appId, content: contents.own, targets: chunk, now });
        messageId = queued.messageId;
        messageCount += queued.deliveries;
        await register(messageId);
      }
    }
    return messageId === undefined ? { messageCount: 0, messageId: null } : { messageCount, messageId: publicId };
  }
  if (contents.localized.size === 0) {
    const first = targets.next();
    if (first.done) return { messageCount: 0, messageId: null };
    const queued = await ctx.outbox.enqueue(tx, { appId, content: contents.own, targets: startingWith(first.value, targets), now });
    await register(queued.messageId);
    return { messageCount: queued.deliveries, messageId: publicId };
  }

  const tags = [...contents.localized.keys()];
  // Devices share few locales: each is matched once.
  const chosen = new Map<string | null, NotificationContent>();
  const groups = new Map<NotificationContent, { messageId?: number; rows: LimitedTarget[] }>();
  let messageCount = 0;
  const flush = async (content: NotificationContent, group: { messageId?: number; rows: LimitedTarget[] }) => {
    if (group.messageId !== undefined) {
      messageCount += await ctx.outbox.append(tx, { appId, messageId: group.messageId, targets: group.rows, now });
    } else {
      const queued = await ctx.outbox.enqueue(tx, { appId, content, targets: group.rows, now });
      group.messageId = queued.messageId;
      messageCount += queued.deliveries;
      await register(queued.messageId);
    }
    group.rows = [];
  };
  /** Puts the device in its language's group; answers the group once it is full (to be written). */
  const place = (target: LimitedTarget): [NotificationContent, { messageId?: number; rows: LimitedTarget[] }] | undefined => {
    let content = chosen.get(target.locale);
    if (content === undefined) {
      const tag = bestLocalization(tags, target.locale);
      content = tag === undefined ? contents.own : contents.localized.get(tag)!;
      chosen.set(target.locale, content);
    }
    let group = groups.get(content);
    if (group === undefined) groups.set(content, (group = { rows: [] }));
    return group.rows.push(target) === LOCALE_BATCH ? [content, group] : undefined;
  };
  const each = async (list: Iterable<LimitedTarget>) => {
    for (const target of list) {
      const full = place(target);
      if (full) await flush(...full);
    }
  };
  if (chunks) for await (const chunk of chunks) await each(chunk);
  else await each({ [Symbol.iterator]: () => targets });
  for (const [content, group] of groups) if (group.rows.length > 0) await flush(content, group);
  return messageCount === 0 ? { messageCount: 0, messageId: null } : { messageCount, messageId: publicId };
}

/** Devices a send reaches, LIMIT_CHUNK at a time, as their quiet hours and frequency caps decided (send-limits.ts). */
async function* limitedChunks(targets: Iterator<SendTarget>, limits: { decide(chunk: readonly SendTarget[]): Promise<LimitedTarget[]> }): AsyncGenerator<LimitedTarget[]> {
  for (;;) {
    const chunk: SendTarget[] = [];
    for (let next = targets.next(); !next.done; next = targets.next()) if (chunk.push(next.value) === LIMIT_CHUNK) break;
    if (chunk.length === 0) return;
    yield await limits.decide(chunk);
    if (chunk.length < LIMIT_CHUNK) return;
  }
}

/** Devices decided at once by send-limits.ts: its statements take a list of this many end users at most. */
const LIMIT_CHUNK = 500;

/** `first`, then the rest of `rest`: the iterator again after a look at its first item. */
function* startingWith<T>(first: T, rest: Iterator<T>): Generator<T> {
  yield first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}
