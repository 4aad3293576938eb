import type { HoldKind } from '../holds/hold-kind';

/**
 * The deliveries held for one down endpoint: the kind (apns_down, fcm_down) and the endpoint (the
 * origin of its provider URL), kept in hold_kind and hold_endpoint (endpointHold in endpoint-key.ts).
 */
export interface EndpointHold {
  kind: HoldKind;
  endpoint: string;
}
