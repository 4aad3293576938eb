import { downHold } from '../holds/hold-kind';
import type { EndpointHold } from './endpoint-holds.types';
import type { EndpointKey } from './endpoint-record';

/**
 * The `reason` of deliveries held because their endpoint is down, for people: it keeps the words
 * "channel down" of before the rename, so clients reading a delivery's reason see the same text.
 * Code finds those deliveries by hold_kind and hold_endpoint (endpointHold), never by this text.
 */
export const endpointDownReason = (key: EndpointKey) => `${key.provider} channel down: ${key.endpoint}`;

/** The hold of deliveries waiting for a down endpoint: its provider's down kind and the endpoint. */
export const endpointHold = (key: EndpointKey): EndpointHold => ({ kind: downHold(key.provider), endpoint: key.endpoint });

/** The endpoint a provider request goes to: its app, provider and the origin of its URL. */
export function endpointOf(appId: string, provider: 'apns' | 'fcm' | 'webpush', url: string): EndpointKey {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return { appId, provider, endpoint: slash < 0 ? url : url.slice(0, slash) };
}
