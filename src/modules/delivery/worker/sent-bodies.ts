import type { DeliveryResult } from './delivery.types';
import { recordedRequest, type ClaimedDelivery } from './delivery.routing';
import type { SendRoute } from './outcome-effects';

/**
 * What a delivery records of its request: the first delivery of a message records the body on
 * the message too (written with its outcome, so before any that leave it out); later ones that
 * sent the same body leave it out of their own record. APNs bodies only: an FCM body names the
 * device's registration token (message.token), which the message must not keep.
 */
export class SentBodies {
  /** The body each recent message records (`messages.sent_body`; null: none yet). */
  private readonly bodies = new Map<number, string | null>();

  recorded(row: ClaimedDelivery, route: SendRoute): Pick<DeliveryResult, 'sentPayload' | 'messageBody'> {
    if (route.request.provider !== 'apns') return { sentPayload: recordedRequest(route.request) };
    let known = this.bodies.get(row.messageId);
    if (known === undefined) {
      // A fan-out's batches share a few messages; the map stays small.
      if (this.bodies.size >= 256) this.bodies.delete(this.bodies.keys().next().value!);
      // As claimed: written by a delivery of an earlier batch or process, or not yet.
      known = row.sentBody;
      this.bodies.set(row.messageId, known);
    }
    const { body } = route.request;
    if (known === body) return { sentPayload: recordedRequest(route.request, false) };
    if (known !== null) return { sentPayload: recordedRequest(route.request) };
    this.bodies.set(row.messageId, body);
    return { sentPayload: recordedRequest(route.request), messageBody: { messageId: row.messageId, body } };
  }
}
