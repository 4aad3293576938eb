import { randomBytes } from 'node:crypto';

/** Base32 without i, l, o, u (Crockford's set, lower case): 32 symbols, so 5 random bits each, no bias. */
const RANDOM_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An opaque, prefixed, URL-safe identifier: a base-36 time part (so ids sort roughly by creation)
 * and 80 random bits (10 random bytes read 5 bits at a time: 16 symbols of 32, each equally likely).
 * @example newId('la') // "la_mhz3k2p0a8x4n1c9r7t2fk6mq"
 */
export function newId(prefix: string, nowMs: number = Date.now()): string {
  const time = nowMs.toString(36).padStart(9, '0');
  const bytes = randomPool(10);
  let rand = '';
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += RANDOM_ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return `${prefix}_${time}${rand}`;
}

/** Random bytes drawn 4 KiB at a time from the system's CSPRNG: one call per ~400 ids instead of one per id. */
let pool = Buffer.alloc(0);
let poolOffset = 0;
function randomPool(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  poolOffset += n;
  return pool.subarray(poolOffset - n, poolOffset);
}
