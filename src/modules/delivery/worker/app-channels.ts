import type { AppContext } from '../../../context';
import { appsService } from '../../apps/apps.service';
import { credentialsReset } from '../endpoint-health/endpoint-reset';
import type { AppChannels } from './delivery.routing';
import { appsRepository } from '../../apps/apps.repository';
import { webPushRepository } from '../../web-push/web-push.repository';
import { webPushService } from '../../web-push/web-push.service';
import { openSubscriptionKeys } from '../../web-push/web-subscription';
import { generateVapidKeys, importVapidKey } from '../providers/webpush/webpush.vapid';
import type { WebPushChannel } from './webpush.routing';

/**
 * An app's delivery channels as a sender needs them: its credentials opened (decrypted and parsed)
 * once per distinct sealed value, and whether each channel is paused. Used by the delivery worker
 * and the broadcast worker; a change of credentials seals anew, so an entry is never stale, and
 * `forget` only frees memory.
 * @example const app = await channels.of(appId); if (app?.apns) …
 */
export class AppChannelsCache {
  private readonly repo;
  private readonly service;
  /** Opened credentials by their sealed value. */
  private readonly opened = new Map<string, unknown>();

  private readonly webPush;
  private readonly webRepo;

  constructor(private readonly ctx: AppContext) {
    this.webPush = webPushService(ctx, { generate: generateVapidKeys, importPem: importVapidKey });
    this.webRepo = webPushRepository(ctx.db.sql);
    this.repo = appsRepository(ctx.db.sql);
    this.service = appsService(ctx, credentialsReset(ctx));
  }

  /**
   * The app's channels; null when the app is gone. `withWebPush: false` (a batch with no web
   * device of the app) leaves out the Web Push read: one statement less per batch for phones.
   */
  async of(appId: string, withWebPush = true): Promise<AppChannels | null> {
    const row = await this.repo.find(appId);
    if (!row) return null;
    const open = <T>(sealed: string | null, read: () => T | undefined): T | undefined => {
      if (!sealed) return undefined;
      if (!this.opened.has(sealed)) this.opened.set(sealed, read());
      return this.opened.get(sealed) as T;
    };
    const web = withWebPush ? await this.webRepo.find(appId) : undefined;
    const box = this.ctx.box;
    const webPush = web
      ? {
          ...open<Pick<WebPushChannel, 'keys'>>(web.privateKeySealed, () => ({ keys: this.webPush.keys(web) }))!,
          subject: web.subject,
          defaultUrl: web.defaultUrl,
          openSubscription: (endpoint: string, sealed: string) => openSubscriptionKeys(box, appId, endpoint, sealed),
        }
      : undefined;
    return {
      webPush,
      apns: open(row.apnsSealed, () => this.service.apns(row)),
      fcm: open(row.fcmSealed, () => this.service.fcm(row)),
      apnsSealed: row.apnsSealed,
      fcmSealed: row.fcmSealed,
      apnsPausedReason: row.apnsPausedReason,
      fcmPausedReason: row.fcmPausedReason,
    };
  }

  /** Some app's credentials changed: what was opened goes. */
  forget(): void {
    this.opened.clear();
  }
}
