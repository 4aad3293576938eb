import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` is `v1,` + base64
 * HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded part of a `whsec_` secret;
 * with several secrets (the one before a rotation, for a while), one signature each, separated by
 * spaces, so a receiver with either secret verifies.
 * @example signedHeaders(['whsec_…'], 'msg_…', 1795435200, '{"type":"…"}')['webhook-signature'] // 'v1,K5oZ…'
 */
export function signedHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
