import type { Outcome, PushRequest, Transport } from '../transport';
import type { WebPushSender } from './webpush.sender';

/** The delivery worker's `webpush` transport: the routed request's push, through the WebPushSender. */
export class WebPushTransport implements Transport {
  constructor(readonly sender: WebPushSender) {}

  send(request: PushRequest): Promise<Outcome> {
    if (!request.webpush) return Promise.resolve({ kind: 'failed', reason: 'not a Web Push request' });
    // A VAPID key that cannot sign fails each push with the reason: Web Push has no paused channel to resume.
    return this.sender.send(request.webpush).then((o) => (o.kind === 'pause-channel' ? { kind: 'failed', reason: o.reason } : o));
  }

  close(): Promise<void> {
    return this.sender.close();
  }
}
