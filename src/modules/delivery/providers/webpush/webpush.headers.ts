import { createHash } from 'node:crypto';

/** RFC 8030 §5.2: how long the push service keeps a message for an offline browser. Four weeks unless the send says. */
export const DEFAULT_TTL_SECONDS = 28 * 24 * 3600;

/** RFC 8030 §5.3. Islet sends `high`, `normal` or `low`. */
export type Urgency = 'very-low' | 'low' | 'normal' | 'high';

/** What a message says about its importance (message-content.ts): `priority` absent means high. */
export interface Importance {
  priority?: 'high' | 'normal';
  interruptionLevel?: 'passive' | 'active' | 'time-sensitive' | 'critical';
}

/**
 * The `Urgency` of a push: time-sensitive and critical are `high` whatever the priority, passive
 * is `low`, otherwise the priority (`high` when absent, as for APNs and FCM).
 * @example urgencyFor({ priority: 'normal' }) // 'normal'
 */
export function urgencyFor(message: Importance): Urgency {
  if (message.interruptionLevel === 'time-sensitive' || message.interruptionLevel === 'critical') return 'high';
  if (message.interruptionLevel === 'passive') return 'low';
  return message.priority === 'normal' ? 'normal' : 'high';
}

/** RFC 8030 §5.4: at most 32 characters of the URL- and filename-safe base64 alphabet. */
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The `Topic` of a push from its collapse id: the id itself when it is a valid topic, else the
 * first 32 characters of its SHA-256 in base64url, so any id still replaces the pending message
 * with the same id. Undefined without a collapse id.
 * @example topicFor('score') // 'score'; topicFor('match 42: score') // 32 characters
 */
export function topicFor(collapseId: string | undefined): string | undefined {
  if (collapseId === undefined || collapseId === '') return undefined;
  if (TOPIC.test(collapseId)) return collapseId;
  return createHash('sha256').update(collapseId).digest('base64url').slice(0, 32);
}

/** The RFC 8030 headers of one push, the Authorization aside. */
export function pushHeaders(options: { ttlSeconds?: number; urgency?: Urgency; topic?: string }): Record<string, string> {
  const ttl = Math.max(0, Math.floor(options.ttlSeconds ?? DEFAULT_TTL_SECONDS));
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'content-encoding': 'aes128gcm',
    ttl: String(ttl),
    urgency: options.urgency ?? 'normal',
  };
  if (options.topic !== undefined) headers.topic = options.topic;
  return headers;
}
