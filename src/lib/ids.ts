import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * An opaque, prefixed, URL-safe identifier: a time part (so ids sort roughly by creation) and
 * 80 random bits.
 * @example newId('la') // "la_mhz3k2p0a8x4n1c9r7t2"
 */
export function newId(prefix: string, nowMs: number = Date.now()): string {
  const time = nowMs.toString(36).padStart(9, '0');
  const bytes = randomBytes(13);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 36];
  return `${prefix}_${time}${rand}`;
}
