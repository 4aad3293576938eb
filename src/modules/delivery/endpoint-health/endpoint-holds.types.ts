import type { HoldKind } from '../holds/hold-kind';

/**
 * The deliveries held for one down endpoint: the kind (apns_down, fcm_down) and the reason, which
 * names the endpoint (endpointHold in endpoint-health.ts).
 */
export interface EndpointHold {
  kind: HoldKind;
  reason: string;
}
