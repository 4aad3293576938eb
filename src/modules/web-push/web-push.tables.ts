import { defineTable, integer, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * An app's Web Push identity (issue 46): its VAPID key pair (RFC 8292), the private key sealed
 * like the app's other secrets (SecretBox, purpose `web_push.private_key:<appId>`), the contact
 * the push services see (`subject`), what a notification opens by default, and how long a
 * subscription not registered again stays a target. No row: the app has no Web Push.
 */
export const { sqlite: webPush, pg: webPushPg } = defineTable('web_push', {
  appId: text().primaryKey().references(() => apps.id, { onDelete: 'cascade' }),
  /** base64url of the 65-byte uncompressed P-256 point: the page's `applicationServerKey`. */
  publicKey: text().notNull(),
  /** Sealed PKCS#8 PEM. */
  privateKeySealed: text().notNull(),
  /** `mailto:` or `https:` (web-push.validation.ts subjectProblem). */
  subject: text().notNull(),
  /** https URL a notification opens when its template has no `url`. */
  defaultUrl: text().notNull(),
  /** Days a subscription not registered again stays a target (Apple answers 201 after a revoke). */
  expiryDays: integer().notNull(),
  /** `config` when declared in the TOML file, `api` when set through the admin API. */
  source: text(['config', 'api']).notNull(),
  createdAt: time().notNull(),
  updatedAt: time().notNull(),
});
