import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { httpsUrlProblem, subjectProblem } from './web-push.validation';
import { webPushRepository, type WebPushRow } from './web-push.repository';

/** A VAPID key pair as delivery/providers/webpush/webpush.vapid.ts makes it (PKCS#8 PEM, base64url point). */
export interface KeyPair {
  privateKeyPem: string;
  publicKey: string;
}

/**
 * How key pairs are made and imported: delivery's webpush.vapid.ts (`generateVapidKeys`,
 * `importVapidKey`), passed in so that this module does not import delivery, which reads it.
 */
export interface KeyMaker {
  generate(): KeyPair;
  /** @throws Error saying what the PEM is instead. */
  importPem(pem: string): KeyPair;
}

/** Days a subscription not registered again stays a target, unless `[apps.web_push] expiry_days` says. */
export const DEFAULT_EXPIRY_DAYS = 60;

export interface WebPushSettings {
  subject: string;
  defaultUrl: string;
  expiryDays?: number;
  /** A PEM private key to use (the TOML's `private_key_file`); absent: the kept pair, or a new one. */
  privateKeyPem?: string;
  source: WebPushRow['source'];
}

/** Refuses settings with a 400 naming the field (`names`: the admin API's or the configuration's). */
export function checkSettings(
  s: { subject: unknown; defaultUrl: unknown; expiryDays?: unknown },
  names = { subject: 'subject', defaultUrl: 'defaultUrl', expiryDays: 'expiryDays' },
): void {
  const problem = subjectProblem(s.subject, names.subject) ?? httpsUrlProblem(s.defaultUrl, names.defaultUrl);
  if (problem) throw new HttpError(400, problem.detail);
  const days = s.expiryDays;
  if (days !== undefined && !(typeof days === 'number' && Number.isSafeInteger(days) && days >= 1 && days <= 3650))
    throw new HttpError(400, `${names.expiryDays} must be a whole number of days from 1 to 3650`);
}

/** Additional data binding the sealed private key to its column and app (see SecretBox). */
const purpose = (appId: string) => `web_push.private_key:${appId}`;

/**
 * An app's Web Push identity: enabling it (the first call generates the VAPID pair, later ones keep
 * it), its public view, its keys for the sender, and disabling it.
 * @example await webPushService(ctx, keys).configure('shop', { subject: 'mailto:ops@example.com', defaultUrl: 'https://example.com', source: 'api' })
 */
export function webPushService(ctx: AppContext, keys: KeyMaker) {
  const repo = webPushRepository(ctx.db.sql);
  const { box, clock } = ctx;

  return {
    find: repo.find,

    /** Enables or changes Web Push for an existing app (the caller checked it exists); 400 naming `subject` or `defaultUrl`. */
    async configure(appId: string, settings: WebPushSettings): Promise<WebPushRow> {
      checkSettings(settings);
      const existing = await repo.find(appId);
      const given = settings.privateKeyPem === undefined ? undefined : keys.importPem(settings.privateKeyPem);
      const pair = given ?? (existing ? { publicKey: existing.publicKey, privateKeyPem: box.open(existing.privateKeySealed, purpose(appId)) } : keys.generate());
      const now = clock.now();
      const row: WebPushRow = {
        appId,
        publicKey: pair.publicKey,
        privateKeySealed: existing && !given ? existing.privateKeySealed : box.seal(pair.privateKeyPem, purpose(appId)),
        subject: settings.subject,
        defaultUrl: settings.defaultUrl,
        expiryDays: settings.expiryDays ?? existing?.expiryDays ?? DEFAULT_EXPIRY_DAYS,
        source: settings.source,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      await repo.put(row);
      return row;
    },

    remove: (appId: string) => repo.remove(appId),

    /** The key pair the sender signs with. */
    keys(row: WebPushRow): KeyPair {
      return { publicKey: row.publicKey, privateKeyPem: box.open(row.privateKeySealed, purpose(row.appId)) };
    },

    /** What the admin API shows: never the private key. */
    view(row: WebPushRow) {
      return { publicKey: row.publicKey, subject: row.subject, defaultUrl: row.defaultUrl, expiryDays: row.expiryDays };
    },
  };
}

export type WebPushService = ReturnType<typeof webPushService>;
