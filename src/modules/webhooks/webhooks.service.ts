import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AppsService } from '../apps/apps.service';
import { checkEndpoint } from '../apps/credentials';
import { PREVIOUS_SECRET_GRACE_MS, secretPurpose } from './webhooks.dispatcher';
import { TEST_EVENT, WEBHOOK_EVENT_TYPES } from './webhooks.events';
import type { AttemptRow, EndpointRow } from './webhooks.types';
import { newWebhookSecret } from './webhooks.signer';
import { webhookEventsRepository } from './webhook-events.repository';
import { webhooksRepository } from './webhooks.repository';

/** Endpoints per app: enough for every consumer of a backend, few enough to fan out cheaply. */
export const MAX_ENDPOINTS_PER_APP = 20;

export interface EndpointInput {
  url?: string;
  events?: string[] | null;
  description?: string | null;
  enabled?: boolean;
}

const notFound = () => new HttpError(404, 'webhook endpoint not found');

/** Refuses unknown or repeated event types, naming the first. */
function checkEvents(events: string[] | null | undefined): void {
  if (!events) return;
  if (events.length === 0) throw new HttpError(400, 'events must list at least one event type, or be left out for every event');
  const seen = new Set<string>();
  for (const type of events) {
    if (!(WEBHOOK_EVENT_TYPES as string[]).includes(type)) throw new HttpError(400, `events: unknown event type ${type} (one of ${WEBHOOK_EVENT_TYPES.join(', ')})`);
    if (seen.has(type)) throw new HttpError(400, `events: ${type} is listed twice`);
    seen.add(type);
  }
}

/** The admin use cases of webhook endpoints. */
export function webhooksService(ctx: AppContext, apps: AppsService) {
  const repo = webhooksRepository(ctx.db.sql);
  const outbound = { allowPrivate: ctx.config.security.allow_private_endpoints };

  const require = async (appId: string, id: string): Promise<EndpointRow> => {
    await apps.get(appId);
    const row = await repo.find(appId, id);
    if (!row) throw notFound();
    return row;
  };

  return {
    async list(appId: string) {
      await apps.get(appId);
      return (await repo.list(appId)).map(endpointView);
    },

    get: async (appId: string, id: string) => endpointView(await require(appId, id)),

    /** A new endpoint with its `whsec_` secret, shown here and at rotation only. */
    async create(appId: string, input: Required<Pick<EndpointInput, 'url'>> & EndpointInput) {
      await apps.get(appId);
      await checkEndpoint(input.url, 'url', outbound);
      checkEvents(input.events);
      if ((await repo.list(appId)).length >= MAX_ENDPOINTS_PER_APP) throw new HttpError(409, `an app has at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints`);
      const now = ctx.clock.now();
      const id = newId('whk', now);
      const secret = newWebhookSecret();
      const row: EndpointRow = {
        id,
        appId,
        url: input.url,
        description: input.description ?? null,
        events: input.events ? JSON.stringify(input.events) : null,
        secretSealed: ctx.box.seal(secret, secretPurpose(id)),
        previousSecretSealed: null,
        previousSecretUntil: null,
        enabled: input.enabled ?? true,
        disabledReason: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await repo.insert(row);
      return { ...endpointView(row), secret };
    },

    async update(appId: string, id: string, input: EndpointInput) {
      const row = await require(appId, id);
      if (input.url !== undefined) await checkEndpoint(input.url, 'url', outbound);
      checkEvents(input.events);
      const next: EndpointRow = {
        ...row,
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.events !== undefined ? { events: input.events === null ? null : JSON.stringify(input.events) } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      };
      await repo.update(next, ctx.clock.now());
      return endpointView(await require(appId, id));
    },

    async remove(appId: string, id: string): Promise<void> {
      await require(appId, id);
      await repo.remove(id);
    },

    /**
     * A new secret, signing from the next attempt on (retries of older events included); for 24
     * hours the previous one signs too (a second signature), so a receiver can switch in its time.
     */
    async rotateSecret(appId: string, id: string) {
      const row = await require(appId, id);
      const secret = newWebhookSecret();
      const now = ctx.clock.now();
      await repo.update(
        { ...row, secretSealed: ctx.box.seal(secret, secretPurpose(id)), previousSecretSealed: row.secretSealed, previousSecretUntil: now + PREVIOUS_SECRET_GRACE_MS },
        now,
      );
      return { secret, previousSecretValidUntil: isoTime(now + PREVIOUS_SECRET_GRACE_MS) };
    },

    /** Queues a `webhook.test` event to this endpoint only; the dispatcher sends it like any other. */
    async test(appId: string, id: string) {
      const row = await require(appId, id);
      if (!row.enabled) throw new HttpError(409, 'webhook endpoint is disabled');
      const now = ctx.clock.now();
      const eventId = await ctx.db.write((tx) =>
        webhookEventsRepository(tx).writeEvent(appId, TEST_EVENT, { endpointId: id, message: 'a test event sent from Islet' }, [id], now),
      );
      return { eventId };
    },

    async attempts(appId: string, id: string, limit: number, offset: number) {
      await require(appId, id);
      const { rows, total } = await repo.attempts(id, limit, offset);
      return { attempts: rows.map(attemptView), total };
    },
  };
}

function endpointView(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events === null ? null : (JSON.parse(row.events) as string[]),
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince === null ? null : isoTime(row.failingSince),
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}

function attemptView(row: AttemptRow) {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    attempt: row.attempt,
    at: isoTime(row.at),
    ok: row.error === null,
    responseStatus: row.responseStatus,
    error: row.error,
    durationMs: row.durationMs,
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
