import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../../../../lib/clock';

/** An application server's VAPID identity (RFC 8292): a P-256 key pair. */
export interface VapidKeys {
  /** PKCS#8 PEM; sealed at rest like the other secrets. */
  privateKeyPem: string;
  /** base64url of the 65-byte uncompressed point: the page's `applicationServerKey`, the header's `k`. */
  publicKey: string;
}

/** A fresh P-256 key pair. */
export function generateVapidKeys(): VapidKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKey: rawPublicKey(privateKey) };
}

/**
 * The key pair of a PEM private key (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`, as
 * `openssl ecparam -genkey` writes it), normalised to PKCS#8.
 * @throws Error saying what the PEM is instead, when it is not a P-256 private key.
 * @example importVapidKey(readFileSync('vapid.pem', 'utf8')).publicKey // 'BK…'
 */
export function importVapidKey(pem: string): VapidKeys {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('the VAPID key is not a PEM private key');
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || curve !== 'prime256v1') {
    throw new Error(`the VAPID key must be a P-256 (prime256v1) EC key, not ${key.asymmetricKeyType === 'ec' ? `curve ${curve}` : key.asymmetricKeyType}`);
  }
  return { privateKeyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKey: rawPublicKey(key) };
}

function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]).toString('base64url');
}

const HOUR = 3_600_000;
/** RFC 8292 §2: `exp` at most 24 hours ahead (Apple refuses more). */
export const MAX_JWT_LIFETIME_MS = 24 * HOUR;
/** How far ahead `exp` is set: well inside 24 h, so a clock a little ahead at the push service does no harm. */
export const JWT_LIFETIME_MS = 12 * HOUR;
/** A JWT this close to its `exp` is not sent any more: a new one is signed. */
export const JWT_RENEW_BEFORE_MS = HOUR;
/** Origins remembered per key before the cache starts over (a bound, not an expected number). */
const MAX_CACHED = 10_000;

interface Entry {
  header: Promise<string>;
  expiresAt: number;
}

/**
 * `Authorization: vapid t=<JWT>, k=<public key>` headers (RFC 8292 §3): an ES256 JWT whose `aud`
 * is the push service's origin, `exp` 12 hours ahead and `sub` the app's contact. One JWT per key,
 * subject and origin, reused until an hour before it expires: every browser of one push service
 * shares its origin, so a fan-out signs once.
 * @example const vapid = new VapidSigner(clock); headers.authorization = await vapid.authorization(keys, 'mailto:ops@example.com', endpoint);
 */
export class VapidSigner {
  private readonly entries = new Map<string, Entry>();
  private readonly keys = new Map<string, KeyObject>();
  /** How many JWTs were signed, for tests and logs. */
  signatures = 0;

  constructor(
    private readonly clock: Clock,
    private readonly lifetimeMs: number = JWT_LIFETIME_MS,
  ) {
    if (lifetimeMs <= JWT_RENEW_BEFORE_MS || lifetimeMs > MAX_JWT_LIFETIME_MS) throw new Error('the VAPID JWT lifetime must be over an hour and at most 24 hours');
  }

  /** The header for a push to `endpoint`, signing a new JWT only when the cached one is near its end. */
  authorization(keys: VapidKeys, subject: string, endpoint: string | URL): Promise<string> {
    const origin = (typeof endpoint === 'string' ? new URL(endpoint) : endpoint).origin;
    // The private key too: a JWT is never reused for a key pair it was not signed with.
    const id = `${keys.privateKeyPem}\n${keys.publicKey}\n${subject}\n${origin}`;
    const now = this.clock.now();
    const entry = this.entries.get(id);
    if (entry && now < entry.expiresAt - JWT_RENEW_BEFORE_MS) return entry.header;
    if (this.entries.size >= MAX_CACHED) this.entries.clear();
    // `exp` is whole seconds, rounded down: never later than the lifetime allows.
    const exp = Math.floor((now + this.lifetimeMs) / 1000);
    const fresh: Entry = { header: this.sign(keys, subject, origin, exp), expiresAt: exp * 1000 };
    // A failed signature is not cached: the next call tries again.
    fresh.header.catch(() => this.entries.get(id) === fresh && this.entries.delete(id));
    this.entries.set(id, fresh);
    return fresh.header;
  }

  private async sign(keys: VapidKeys, subject: string, origin: string, exp: number): Promise<string> {
    let key = this.keys.get(keys.privateKeyPem);
    if (!key) {
      key = createPrivateKey(keys.privateKeyPem);
      if (this.keys.size >= MAX_CACHED) this.keys.clear();
      this.keys.set(keys.privateKeyPem, key);
    }
    const jwt = await new SignJWT({ sub: subject }).setProtectedHeader({ typ: 'JWT', alg: 'ES256' }).setAudience(origin).setExpirationTime(exp).sign(key);
    this.signatures++;
    return `vapid t=${jwt}, k=${keys.publicKey}`;
  }
}
