import { newId } from '../../../lib/ids';
import type { Outcome, PushRequest, Transport } from './transport';

/**
 * The transport of apps without APNs or FCM credentials (the embedded default): nothing leaves the
 * machine, every request counts as delivered, and the worker records the exact request that would
 * have been sent (`deliveries.sent_payload`) for the console.
 */
export class SimulatorTransport implements Transport {
  /** Requests accepted so far. */
  sent = 0;

  async send(_request: PushRequest): Promise<Outcome> {
    this.sent++;
    return { kind: 'delivered', providerId: newId('sim') };
  }

  async close(): Promise<void> {}
}
