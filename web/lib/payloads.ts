/** Reading back what was sent: a delivery's `sentPayload` is the recorded provider request. */
import type { Delivery } from './types';

export interface RecordedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** The recorded request as an object, whether the API sent it parsed or as a JSON string. */
export function recordedRequest(payload: unknown): RecordedRequest | undefined {
  let value = payload;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as RecordedRequest;
  return 'body' in v ? v : { body: v };
}

/** Oldest first, the order of a timeline. */
export function chronological(deliveries: Delivery[]): Delivery[] {
  return [...deliveries].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || Number(a.id) - Number(b.id));
}

const KINDS: Record<string, string> = { la_start: 'Start', la_update: 'Update', la_end: 'End', notification: 'Notification' };

export const kindLabel = (kind: string) => KINDS[kind] ?? kind;

/**
 * The priority a Live Activity push went at, as its recorded request says: APNs `apns-priority`,
 * FCM `android.priority` (high is 10, normal 5); undefined before it was sent or for a notification.
 */
export function pushPriority(kind: string, payload: unknown): '10' | '5' | undefined {
  if (!kind.startsWith('la_')) return undefined;
  const request = recordedRequest(payload);
  const apns = request?.headers?.['apns-priority'];
  if (apns === '10' || apns === '5') return apns;
  const android = (request?.body as { message?: { android?: { priority?: string } } } | undefined)?.message?.android?.priority;
  return android === 'high' ? '10' : android === 'normal' ? '5' : undefined;
}
