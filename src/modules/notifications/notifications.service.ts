import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import type { AudienceFilter } from '../devices/devices.repository';
import { newId } from '../../lib/ids';
import { releaseNotFound, templateNotFound, type ReleasesService } from './releases.service';
import type { ReleaseRow } from './releases.repository';
import type { SendAdditions } from './notification-content';
import { messageStatus } from './message-status';
import { queueSend, sendContents, type SendResult } from './send-fan-out';

export interface SendInput extends SendAdditions {
  templateSlug: string;
  variables?: Record<string, string>;
  targetUsers?: string[];
  /** Instead of `targetUsers`: the devices whose end user's tags and platform match (issue 38). */
  audience?: AudienceFilter;
  testReleaseVersion?: number;
}

/** Sending notifications: pick the release, render its template once per language, queue one delivery per device. */
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
    /** What became of a sent notification (see messageStatus). */
    status: (appId: string, messageId: string) => messageStatus(ctx, appId, messageId),

    /**
     * Renders the template (in each of its localizations) and queues it for every valid device of
     * the targeted end users (all connected ones when `targetUsers` is absent; only testers for a
     * test send), each device in its locale's text (send-fan-out.ts). The messages and all their
     * deliveries are written in one transaction before this returns.
     * The content (template, send's additions, message id) is checked whole before anything is
     * written: an invalid send queues nothing.
     * @example send('demo', { templateSlug: 'welcome', variables: { name: 'Ada' } }) // { messageCount: 3, messageId: 'msg_…' }
     */
    async send(appId: string, input: SendInput, options: { messageId?: string } = {}): Promise<SendResult> {
      const release = await releaseFor(appId, input.testReleaseVersion);
      const template = await store.repos.releases.findTemplate(appId, release.version, input.templateSlug);
      if (!template) throw templateNotFound(input.templateSlug, release.version);
      const now = clock.now();
      // The demo's message has a fixed id (the API document's examples name it).
      const messageId = options.messageId ?? newId('msg', now);
      const contents = sendContents(template, input, { messageId, now, defaultTtlSeconds: ctx.config.notifications.ttl_seconds });
      const audience = {
        endUserIds: input.targetUsers && [...new Set(input.targetUsers)],
        audience: input.audience,
        testersOnly: input.testReleaseVersion !== undefined,
      };
      return store.write((tx) => queueSend(ctx, tx, { appId, publicId: messageId, contents, audience, now }));
    },
  };
}

export type NotificationsService = ReturnType<typeof notificationsService>;
