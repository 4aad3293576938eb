import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import type { NotificationContent } from '../delivery/message-content';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../delivery/payloads';
import { renderTemplate } from './placeholders';
import { releaseNotFound, templateNotFound, type ReleasesService } from './releases.service';
import type { ReleaseRow } from './releases.repository';

export interface SendInput {
  templateSlug: string;
  variables?: Record<string, string>;
  targetUsers?: string[];
  testReleaseVersion?: number;
}

/** Sending notifications: pick the release, render its template once, queue one delivery per device. */
export function notificationsService(ctx: AppContext, releases: ReleasesService) {
  const { clock } = ctx;
  const store = ctx.db;

  /** The Live release, or the Testing release a test send names. */
  const releaseFor = async (appId: string, testReleaseVersion: number | undefined): Promise<ReleaseRow> => {
    if (testReleaseVersion === undefined) {
      const live = await store.repos.releases.findLive(appId);
      if (!live) throw new HttpError(422, 'app has no live release');
      return live;
    }
    const release = await store.repos.releases.find(appId, testReleaseVersion);
    if (!release) throw releaseNotFound();
    if (release.status !== 'Testing') throw new HttpError(422, 'release is not in Testing status');
    return release;
  };

  return {
    /**
     * Renders the template and queues it for every valid device of the targeted end users (all
     * connected ones when `targetUsers` is absent; only testers for a test send). The message and
     * all its deliveries are written in one transaction before this returns.
     * @example send('demo', { templateSlug: 'welcome', variables: { name: 'Ada' } }) // { messageCount: 3 }
     */
    async send(appId: string, input: SendInput): Promise<{ messageCount: number }> {
      const release = await releaseFor(appId, input.testReleaseVersion);
      const template = await store.repos.releases.findTemplate(appId, release.version, input.templateSlug);
      if (!template) throw templateNotFound(input.templateSlug, release.version);
      const content: NotificationContent = {
        type: 'notification',
        templateSlug: template.slug,
        releaseVersion: release.version,
        title: renderTemplate(template.title, input.variables),
        body: renderTemplate(template.body, input.variables),
        ttlSeconds: ctx.config.notifications.ttl_seconds,
      };
      if (payloadBytes(content) > MAX_PAYLOAD_BYTES) throw new HttpError(400, `payload exceeds ${MAX_PAYLOAD_BYTES} bytes`);
      const filter = {
        endUserIds: input.targetUsers && [...new Set(input.targetUsers)],
        testersOnly: input.testReleaseVersion !== undefined,
      };
      return store.write(async (tx) => {
        const targets = await tx.devices.sendTargets(appId, filter);
        const first = targets.next();
        // Nothing to deliver: no message row either, it would only clutter the outbox.
        if (first.done) return { messageCount: 0 };
        const { deliveries } = await ctx.outbox.enqueue(tx, { appId, content, targets: startingWith(first.value, targets), now: clock.now() });
        return { messageCount: deliveries };
      });
    },
  };
}

/** `first`, then the rest of `rest`: the iterator again after a look at its first item. */
function* startingWith<T>(first: T, rest: Iterator<T>): Generator<T> {
  yield first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

export type NotificationsService = ReturnType<typeof notificationsService>;
