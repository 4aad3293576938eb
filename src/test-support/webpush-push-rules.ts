import { createPublicKey, verify } from 'node:crypto';

/** A push service's refusal: the status and a reason word (Apple answers `{"reason":"BadJwtToken"}`). */
export interface Refusal {
  status: number;
  reason: string;
  /** What exactly was wrong, for a test's failure message (never sent as the reason). */
  detail: string;
}

/** The VAPID claims of an accepted push. */
export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
  /** The application server key of the header's `k` (base64url). */
  k: string;
}

const DAY_S = 24 * 3600;
/**
 * Authorization headers whose signature verified. A sender reuses one JWT for every push to an
 * origin, so the signature is checked once; the claims (exp against the clock) every time.
 */
const verified = new Set<string>();
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
const LOCAL = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The checks a push service makes before it takes a push (RFC 8030 §5, RFC 8291 §4, RFC 8292
 * §2-4) and what Apple's adds: `Content-Encoding` exactly `aes128gcm`, a `TTL`, a valid `Urgency`
 * and `Topic`, at most 4096 bytes, `Authorization: vapid t=…, k=…` whose ES256 JWT verifies with
 * `k`, `k` the subscription's application server key, `aud` this service's origin, `exp` in the
 * future and at most 24 hours ahead, and `sub` a `mailto:` or `https:` contact that is not local.
 * @returns the refusal, or the JWT's claims.
 */
export function checkPush(
  headers: Headers,
  bodyLength: number,
  expect: { origin: string; applicationServerKey?: string; nowMs: number },
): Refusal | VapidClaims {
  const refuse = (status: number, reason: string, detail: string): Refusal => ({ status, reason, detail });
  const encoding = headers.get('content-encoding');
  if (encoding !== 'aes128gcm') return refuse(400, 'UnsupportedContentEncoding', `Content-Encoding must be exactly aes128gcm, not ${encoding}`);
  const ttl = headers.get('ttl');
  if (ttl === null || !/^\d{1,10}$/.test(ttl)) return refuse(400, 'BadTtl', `TTL must be a number of seconds, not ${ttl}`);
  const urgency = headers.get('urgency');
  if (urgency !== null && !URGENCIES.has(urgency)) return refuse(400, 'BadUrgency', `Urgency ${urgency}`);
  const topic = headers.get('topic');
  if (topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(400, 'BadTopic', `Topic ${topic} is not 1-32 base64url characters`);
  if (bodyLength > 4096) return refuse(413, 'PayloadTooLarge', `${bodyLength} bytes over 4096`);
  const authorization = headers.get('authorization');
  if (!authorization) return refuse(401, 'MissingAuthorization', 'no Authorization header');
  const match = authorization.match(/^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/);
  if (!match) return refuse(401, 'BadAuthorization', `Authorization is not "vapid t=<jwt>, k=<key>": ${authorization.slice(0, 40)}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  const key = Buffer.from(k, 'base64url');
  if (key.length !== 65 || key[0] !== 4) return refuse(401, 'BadAuthorization', 'k is not a 65-byte P-256 point');
  if (expect.applicationServerKey !== undefined && k !== expect.applicationServerKey)
    return refuse(403, 'VapidPkHashMismatch', 'k is not the key the subscription was made with');
  const [head, payload, signature] = jwt.split('.') as [string, string, string];
  let header: { alg?: unknown };
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString());
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    return refuse(403, 'BadJwtToken', 'the JWT is not JSON');
  }
  if (header.alg !== 'ES256') return refuse(403, 'BadJwtToken', `alg ${String(header.alg)}`);
  if (!verified.has(authorization)) {
    const publicKey = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: key.subarray(1, 33).toString('base64url'), y: key.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    const signed = verify('sha256', Buffer.from(`${head}.${payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    if (!signed) return refuse(403, 'BadJwtToken', 'the signature does not verify with k');
    if (verified.size >= 1000) verified.clear();
    verified.add(authorization);
  }
  if (claims.aud !== expect.origin) return refuse(403, 'BadJwtToken', `aud ${String(claims.aud)} is not ${expect.origin}`);
  const now = Math.floor(expect.nowMs / 1000);
  if (typeof claims.exp !== 'number' || !Number.isInteger(claims.exp)) return refuse(403, 'BadJwtToken', 'exp missing');
  if (claims.exp <= now) return refuse(403, 'ExpiredJwtToken', `exp ${claims.exp} passed`);
  if (claims.exp > now + DAY_S) return refuse(403, 'BadJwtToken', `exp ${claims.exp - now} s ahead, over 24 hours`);
  if (!isContact(claims.sub)) return refuse(403, 'BadJwtToken', `sub ${String(claims.sub)} is not a mailto: or https: contact`);
  return { aud: claims.aud, exp: claims.exp, sub: claims.sub, k };
}

/** Apple's `sub`: a `mailto:` address or an `https:` URL, neither at a local host. */
function isContact(sub: unknown): sub is string {
  if (typeof sub !== 'string' || /[\s<>]/.test(sub)) return false;
  const mail = sub.match(/^mailto:[^@]+@([^@?]+)$/);
  if (mail) return !LOCAL.test(mail[1]!);
  if (!sub.startsWith('https://') || !URL.canParse(sub)) return false;
  return !LOCAL.test(new URL(sub).hostname);
}
