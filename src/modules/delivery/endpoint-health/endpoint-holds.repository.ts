import type { HoldKind } from '../holds/hold-kind';

/**
 * The deliveries held for one down endpoint: the kind (apns_down, fcm_down) and the reason, which
 * names the endpoint (endpointHold in endpoint-health.ts).
 */
export interface EndpointHold {
  kind: HoldKind;
  reason: string;
}

/** The endpoint-holds repository, one implementation for both databases: src/db/repositories/endpoint-holds.ts. */
export interface EndpointHoldsRepository {
  /** The endpoint is back: everything held for it is due now. Returns how many waited. */
  release(appId: string, hold: EndpointHold, now: number): Promise<number>;
  /** Makes one held delivery of the endpoint due now, to serve as its probe. */
  releaseProbe(appId: string, hold: EndpointHold, now: number): Promise<boolean>;
  /** The app's credentials for the provider changed: whatever was held (`kind`: that provider's down hold) for any of its endpoints is due now. */
  releaseProvider(appId: string, kind: HoldKind, now: number): Promise<number>;
  /** At start: endpoint health lives in memory, so whatever a previous process held for a down endpoint is due again. */
  recover(now: number): Promise<number>;
  /** Deliveries held per down endpoint of an app, by their reason. */
  heldByReason(appId: string): Promise<Map<string, number>>;
}
