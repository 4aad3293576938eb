/** An APNs request, headers and JSON body, as the payload builders make it (payloads.ts for live activities, notification-payloads.ts for notifications). */
export interface ApnsRequest {
  /** Which token: the device token, the push-to-start token, or the activity's own update token. */
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
