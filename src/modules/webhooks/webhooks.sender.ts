import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, outboundGuard, type OutboundPolicy } from '../../lib/outbound-policy';

export interface PostResult {
  /** 2xx. */
  ok: boolean;
  /** The receiver's status; null when none came. */
  status: number | null;
  error: string | null;
}

/** How long a receiver has to answer (Standard Webhooks recommends a short timeout). */
export const POST_TIMEOUT_MS = 15_000;

/**
 * Posts webhook bodies under the outbound-address policy: the URL is checked (resolved) before
 * each attempt, and the connection's own name lookup refuses a non-public address, so a DNS
 * answer changed in between cannot reach an internal host. Redirects are not followed.
 */
export function webhookSender(policy: OutboundPolicy) {
  const allowed = outboundGuard(policy);
  const lookup = guardedLookup(policy);
  return async (url: string, headers: Record<string, string>, body: string): Promise<PostResult> => {
    const problem = await allowed(url, 'url');
    if (problem) return { ok: false, status: null, error: problem };
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    return new Promise<PostResult>((resolve) => {
      const req = send(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Islet-Webhooks' },
          timeout: POST_TIMEOUT_MS,
          ...(lookup ? { lookup: lookup as never } : {}),
        },
        (res) => {
          // The body is not kept: only the status says whether the receiver took the event.
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const ok = status >= 200 && status < 300;
            resolve({ ok, status, error: ok ? null : `receiver answered ${status}` });
          });
          res.on('error', (e) => resolve({ ok: false, status: res.statusCode ?? null, error: e.message }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${POST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ ok: false, status: null, error: e.code ? `${e.code}: ${e.message}` : e.message }));
      req.end(body);
    });
  };
}

export type WebhookSender = ReturnType<typeof webhookSender>;
