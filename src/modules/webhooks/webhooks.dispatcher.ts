import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { type DueDelivery } from './webhooks.types';
import { POST_TIMEOUT_MS, webhookSender, type WebhookSender } from './webhooks.sender';
import { signedHeaders } from './webhooks.signer';
import { webhooksRepository } from './webhooks.repository';

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
/** How often the dispatcher looks for due deliveries. */
export const DISPATCH_INTERVAL_MS = SECOND;

/** After a rotation the previous secret still signs (a second signature) for this long, so receivers can switch without losing events. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * HOUR;

/** The credentials' purpose for sealing an endpoint's secrets (lib/secrets.ts). */
export const secretPurpose = (endpointId: string) => `webhook:${endpointId}:secret`;

/** What the scheduler runs: the dispatcher fits its Job, so webhooks need not import the scheduler that lists it. */
export interface DispatcherJob {
  name: string;
  intervalMs: number;
  run(now: number): Promise<void>;
  /** The scheduler stops: posts in flight finish, nothing new is claimed. */
  stop(): void;
  /** This instance no longer leads: this run's posts finish, it claims nothing more (the new leader's run does). */
  standDown(): void;
  /** Puts deliveries a stopped process was sending back in the queue (once; again after a failure). */
  recover(): Promise<void>;
}

/**
 * A delivery `sending` this long is no longer being posted by anyone (a post gives up after
 * POST_TIMEOUT_MS): its claim's answer was lost or its attempt could not be recorded.
 */
export const STALE_CLAIM_MS = 8 * POST_TIMEOUT_MS;

/**
 * Sends the webhook outbox: a scheduler job that posts due deliveries, signed, and records each
 * attempt. A failure is retried on the Standard Webhooks schedule by the clock; after the last
 * retry the delivery is failed. Deliveries a stopped process was sending are due again at start.
 * Posts go side by side, at most POSTS_PER_ENDPOINT per endpoint and MAX_POSTS_IN_FLIGHT in all;
 * a run lasts while posts are in flight and takes due deliveries again whenever one finishes (and
 * at least every second), so a slow endpoint delays nobody else's events.
 * @example createScheduler(ctx) // includes webhookDispatcher(ctx)
 */
export function webhookDispatcher(ctx: AppContext, send: WebhookSender = webhookSender({ allowPrivate: ctx.config.security.allow_private_endpoints })): DispatcherJob {
  const repo = webhooksRepository(ctx.db.sql);
  // Started by the server before it listens, and awaited by every run: nothing is claimed before
  // it. Not at construction: a failure there would be a rejection nobody awaits (the process dies).
  let recovered: Promise<void> | undefined;
  const recover = (): Promise<void> =>
    (recovered ??= ctx.coordination.instance
      .recover('webhook deliveries', () => repo.recoverSending(ctx.clock.now()))
      .then(
        () => {},
        (e) => {
          recovered = undefined;
          throw e;
        },
      ));

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

  /** This process's own posts in flight per endpoint (its sockets; only the scheduler's leader runs this job). */
  const busy = new Map<string, number>();
  let inFlight = 0;
  let stopping = false;
  let standingDown = false;
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

  return {
    name: 'webhooks',
    intervalMs: DISPATCH_INTERVAL_MS,
    recover,
    async run(now) {
      await recover();
      standingDown = false;
      const stale = await repo.releaseStale(now - STALE_CLAIM_MS, now);
      if (stale > 0) ctx.logger.warn('webhook deliveries left sending by a lost claim or an unrecorded attempt will be posted again', { count: stale });
      for (;;) {
        // A claim is atomic, so two runs (the old leader's and the new one's) never post one delivery twice.
        if (!stopping && !standingDown && inFlight < MAX_POSTS_IN_FLIGHT) (await repo.claim(ctx.clock.now(), MAX_POSTS_IN_FLIGHT - inFlight, POSTS_PER_ENDPOINT, busy)).forEach(post);
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
    },
    stop() {
      stopping = true;
    },
    standDown() {
      standingDown = true;
      wake?.();
    },
  };
}
