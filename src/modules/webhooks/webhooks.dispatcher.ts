import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { type DueDelivery } from './webhooks.types';
import { POST_TIMEOUT_MS, webhookSender, type WebhookSender } from './webhooks.sender';
import { signedHeaders } from './webhooks.signer';
import { webhooksRepository } from './webhooks.repository';
import { Pump } from '../../queue/pump';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Standard Webhooks: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after each failure. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];
/** An endpoint whose every attempt failed for this long is disabled (and marked so). */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;
/**
 * Posts in flight to one endpoint, and in all: a receiver that hangs (up to the 15 s timeout)
 * holds only its own slots, so the other endpoints' events go on within the second.
 */
export const POSTS_PER_ENDPOINT = 4;
export const MAX_POSTS_IN_FLIGHT = 64;
/** How often the dispatcher looks for due deliveries (its pump's poll). */
export const DISPATCH_INTERVAL_MS = SECOND;

/** After a rotation the previous secret still signs (a second signature) for this long, so receivers can switch without losing events. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * HOUR;

/** The credentials' purpose for sealing an endpoint's secrets (lib/secrets.ts). */
export const secretPurpose = (endpointId: string) => `webhook:${endpointId}:secret`;

/** The webhook outbox's consumer on the queue runtime (src/queue/pump.ts). */
export interface WebhookDispatcher {
  /** Puts deliveries a stopped process (or a dead instance) was sending back in the queue: once, again after a failure. The server awaits it before it listens. */
  recover(): Promise<void>;
  /** One round now (recovery first): claims what is due while there is room and resolves once its posts are recorded. Tests drive this with a fake clock. */
  drain(): Promise<void>;
  /** Runs rounds in the background: one each second, and again whenever a post ends. */
  start(): void;
  /** Posts in flight finish and are recorded; nothing new is claimed. */
  stop(): Promise<void>;
}

/**
 * A delivery `sending` this long is no longer being posted by anyone (a post gives up after
 * POST_TIMEOUT_MS): its claim's answer was lost or its attempt could not be recorded.
 */
export const STALE_CLAIM_MS = 8 * POST_TIMEOUT_MS;

/**
 * Sends the webhook outbox on the queue runtime: each round posts due deliveries, signed, and
 * records each attempt. A failure is retried on the Standard Webhooks schedule by the clock; after
 * the last retry the delivery is failed. Deliveries a stopped process was sending are due again at
 * start. Posts go side by side, at most POSTS_PER_ENDPOINT per endpoint and MAX_POSTS_IN_FLIGHT in
 * all (per instance); a round lasts while posts are in flight and takes due deliveries again
 * whenever one finishes (and at least every second), so a slow endpoint delays nobody else's
 * events. Every instance runs it: claims are atomic and name their instance (src/queue/claims.ts).
 * @example const webhooks = webhookDispatcher(ctx); await webhooks.recover(); webhooks.start(); … await webhooks.stop();
 */
export function webhookDispatcher(ctx: AppContext, send: WebhookSender = webhookSender({ allowPrivate: ctx.config.security.allow_private_endpoints })): WebhookDispatcher {
  const repo = webhooksRepository(ctx.db.sql);

  /** The secrets that sign an attempt now: the current one, and the previous one during its grace period. */
  const openSecrets = (d: DueDelivery, now: number): string[] | undefined => {
    try {
      const current = ctx.box.open(d.secretSealed, secretPurpose(d.endpointId));
      const previous =
        d.previousSecretSealed && d.previousSecretUntil !== null && now < d.previousSecretUntil ? ctx.box.open(d.previousSecretSealed, secretPurpose(d.endpointId)) : undefined;
      return previous ? [current, previous] : [current];
    } catch {
      return undefined;
    }
  };

  const deliver = async (d: DueDelivery) => {
    const now = ctx.clock.now();
    const started = performance.now();
    const secrets = openSecrets(d, now);
    const result = secrets
      ? await send(d.url, signedHeaders(secrets, d.eventId, Math.floor(now / 1000), d.body), d.body)
      : { ok: false, status: null, error: 'the endpoint secret cannot be opened with this master key' };
    const attempt = d.attempts + 1;
    const delay = RETRY_DELAYS_MS[attempt - 1];
    const failingSince = d.failingSince ?? now;
    const disable = !result.ok && now - failingSince >= DISABLE_AFTER_MS;
    await repo.record(
      d,
      { ...result, durationMs: Math.round(performance.now() - started), at: now },
      result.ok
        ? { status: 'delivered', nextAttemptAt: now }
        : {
            status: delay === undefined || disable ? 'failed' : 'pending',
            nextAttemptAt: now + (delay ?? 0),
            ...(disable ? { disableReason: `every attempt failed since ${isoTime(failingSince)}: disabled after 5 days` } : {}),
          },
    );
    if (disable) ctx.logger.warn('webhook endpoint disabled', { endpointId: d.endpointId, failingSince: isoTime(failingSince) });
  };

  /** This process's own posts in flight per endpoint (its sockets). */
  const busy = new Map<string, number>();
  let inFlight = 0;
  let stopping = false;
  let wake: (() => void) | undefined;

  const post = (d: DueDelivery) => {
    busy.set(d.endpointId, (busy.get(d.endpointId) ?? 0) + 1);
    inFlight++;
    deliver(d)
      .catch((e) => ctx.logger.error('webhook attempt not recorded', { endpointId: d.endpointId, error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        const left = busy.get(d.endpointId)! - 1;
        if (left === 0) busy.delete(d.endpointId);
        else busy.set(d.endpointId, left);
        inFlight--;
        wake?.();
      });
  };

  const round = async () => {
    const stale = await repo.releaseStale(ctx.clock.now() - STALE_CLAIM_MS, ctx.clock.now());
    if (stale > 0) ctx.logger.warn('webhook deliveries left sending by a lost claim or an unrecorded attempt will be posted again', { count: stale });
    for (;;) {
      // A claim is atomic and names this instance, so two instances never post one delivery twice.
      if (!stopping && inFlight < MAX_POSTS_IN_FLIGHT) (await repo.claim(ctx.clock.now(), MAX_POSTS_IN_FLIGHT - inFlight, POSTS_PER_ENDPOINT, busy)).forEach(post);
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DISPATCH_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  // Posted when due by the clock (retries, and events written by any instance): polled, no wake-up.
  const pump = new Pump(ctx.coordination.wakeUps, ctx.logger, {
    name: 'webhook dispatcher',
    pollMs: DISPATCH_INTERVAL_MS,
    wakeOn: [],
    recover: async () => void (await ctx.coordination.instance.recover('webhook deliveries', () => repo.recoverSending(ctx.clock.now()))),
    round,
  });
  /** The round under way when driven by `drain` (the pump's own rounds are awaited by its stop). */
  let draining: Promise<void> | undefined;

  return {
    recover: () => pump.recover(),
    drain: () => (draining ??= pump.round().then(() => undefined).finally(() => (draining = undefined))),
    start: () => pump.start(),
    async stop() {
      stopping = true;
      wake?.();
      await pump.stop();
      await draining;
    },
  };
}
