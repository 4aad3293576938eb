import type { Clock } from '../../../../lib/clock';
import { outboundGuard, type OutboundPolicy } from '../../../../lib/outbound-policy';
import { Semaphore } from '../../worker/concurrency';
import { connectionReason } from '../provider-reason';
import { retryAfterMs, type Outcome } from '../transport';
import { encryptPayload, PayloadTooLargeError } from './webpush.encryption';
import { pushHeaders, type Urgency } from './webpush.headers';
import { webPushOutcome } from './webpush.outcome';
import { VapidSigner } from './webpush.vapid';
import type { WebPushRequest } from './webpush.request';

export type { WebPushRequest, WebPushSubscription } from './webpush.request';

/** Bytes of a push service's answer read at most: enough for its reason, never a page. */
export const MAX_RESPONSE_BYTES = 4096;

export interface WebPushSenderOptions {
  clock: Clock;
  outbound?: OutboundPolicy;
  requestTimeoutMs?: number;
  maxConcurrent?: number;
  vapid?: VapidSigner;
}

/**
 * The Web Push transport (RFC 8030, 8291, 8292): for each subscription, the endpoint checked
 * against the outbound policy again (DNS may have changed since registration), the payload
 * encrypted for its keys, the app's VAPID JWT for the endpoint's origin, one POST, no redirect
 * followed, at most 4 KB of the answer read.
 * @example const web = new WebPushSender({ clock }); await web.send({ appId, subscription, vapid, payload });
 */
export class WebPushSender {
  readonly vapid: VapidSigner;
  private readonly limit: Semaphore;
  private readonly allowed: ReturnType<typeof outboundGuard>;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: WebPushSenderOptions) {
    this.vapid = options.vapid ?? new VapidSigner(options.clock);
    this.allowed = outboundGuard(options.outbound ?? { allowPrivate: false });
    this.limit = new Semaphore(options.maxConcurrent ?? 200);
  }

  send(request: WebPushRequest): Promise<Outcome> {
    return this.limit.run(() => this.sendNow(request));
  }

  private async sendNow(request: WebPushRequest): Promise<Outcome> {
    if (this.closed) return { kind: 'unreachable', reason: 'shutting down' };
    const { subscription } = request;
    const url = URL.canParse(subscription.endpoint) ? new URL(subscription.endpoint) : undefined;
    if (!url) return { kind: 'drop-token', reason: 'the subscription endpoint is not a URL' };
    const refused = await this.allowed(url, 'subscription endpoint');
    if (refused) return { kind: 'failed', reason: refused };
    let body: Buffer<ArrayBuffer>;
    try {
      body = encryptPayload(Buffer.from(request.payload), subscription);
    } catch (e) {
      if (e instanceof PayloadTooLargeError) return { kind: 'failed', reason: e.message };
      // Keys are validated at registration; keys no browser could have made never will work.
      return { kind: 'drop-token', reason: 'the subscription keys are not a P-256 point and an auth secret' };
    }
    let authorization: string;
    try {
      authorization = await this.vapid.authorization(request.vapid.keys, request.vapid.subject, url);
    } catch {
      return { kind: 'pause-channel', reason: 'the VAPID key cannot sign' };
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('timed out')), this.options.requestTimeoutMs ?? 30_000);
    this.inFlight.add(abort);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...pushHeaders(request), authorization },
        body,
        redirect: 'manual',
        signal: abort.signal,
      });
      const text = await readAtMost(response, MAX_RESPONSE_BYTES).catch(() => '');
      return webPushOutcome({ status: response.status, text, retryAfterMs: retryAfterMs(response.headers.get('retry-after'), this.options.clock.now()) });
    } catch (e) {
      // Refused, TLS, timeout, or cut after sending: no answer, so at least once means again.
      return { kind: 'unreachable', reason: connectionReason(this.closed ? 'shutting down' : (e as Error).message, 'no answer') };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  /** Stops sending; pushes in flight end unreachable. */
  async close(): Promise<void> {
    this.closed = true;
    for (const abort of this.inFlight) abort.abort(new Error('shutting down'));
  }
}

/**
 * The first `max` bytes of a response body as text; the rest is never read. A body whose
 * Content-Length says it fits (a 201 says 0) is read whole: a third of the cost of a reader.
 */
export async function readAtMost(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const declared = response.headers.get('content-length');
  if (declared === '0') return '';
  if (declared !== null && /^\d{1,4}$/.test(declared) && Number(declared) <= max) return (await response.text()).slice(0, max);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } finally {
    if (total >= max) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
