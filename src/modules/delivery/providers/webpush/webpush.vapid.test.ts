import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { FakeClock } from '../../../../lib/clock';
import { generateVapidKeys, importVapidKey, MAX_JWT_LIFETIME_MS, VapidSigner, type VapidKeys } from './webpush.vapid';

/** The public key of a VAPID header's `k`, as the push service reads it. */
function publicJwk(k: string) {
  const raw = Buffer.from(k, 'base64url');
  return { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') };
}

function parseHeader(header: string) {
  const match = header.match(/^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/);
  expect(match).not.toBeNull();
  return { t: match![1]!, k: match![2]! };
}

describe('VAPID keys', () => {
  test('a generated key pair: a 65-byte uncompressed public point and a PKCS#8 PEM that imports to the same point', () => {
    const keys = generateVapidKeys();
    const raw = Buffer.from(keys.publicKey, 'base64url');
    expect(raw.length).toBe(65);
    expect(raw[0]).toBe(4);
    expect(keys.privateKeyPem).toStartWith('-----BEGIN PRIVATE KEY-----');
    expect(importVapidKey(keys.privateKeyPem)).toEqual(keys);
  });

  test('a SEC 1 PEM (openssl ecparam -genkey) imports and is normalised to PKCS#8', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const sec1 = privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    expect(sec1).toStartWith('-----BEGIN EC PRIVATE KEY-----');
    const keys = importVapidKey(sec1);
    expect(keys.privateKeyPem).toBe(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  });

  test('anything but a P-256 private key is refused with what it is', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => importVapidKey(p384)).toThrow('the VAPID key must be a P-256 (prime256v1) EC key, not curve secp384r1');
    expect(() => importVapidKey(rsa)).toThrow('the VAPID key must be a P-256 (prime256v1) EC key, not rsa');
    expect(() => importVapidKey('not a key')).toThrow('the VAPID key is not a PEM private key');
  });
});

describe('VapidSigner', () => {
  const keys: VapidKeys = generateVapidKeys();
  const subject = 'mailto:ops@example.com';

  test('the header carries an ES256 JWT for the endpoint origin, the subject, and exp within 24 hours', async () => {
    const clock = new FakeClock();
    const header = await new VapidSigner(clock).authorization(keys, subject, 'https://web.push.apple.com:443/QGq1bm2x/abc?x=1');
    const { t, k } = parseHeader(header);
    expect(k).toBe(keys.publicKey);
    expect(decodeProtectedHeader(t)).toEqual({ typ: 'JWT', alg: 'ES256' });
    const { payload } = await jwtVerify(t, await importJWK(publicJwk(k), 'ES256'), { currentDate: new Date(clock.now()) });
    expect(payload.aud).toBe('https://web.push.apple.com');
    expect(payload.sub).toBe(subject);
    expect(payload.exp! * 1000).toBeGreaterThan(clock.now());
    expect(payload.exp! * 1000 - clock.now()).toBeLessThanOrEqual(MAX_JWT_LIFETIME_MS);
    expect(Object.keys(payload).sort()).toEqual(['aud', 'exp', 'sub']);
  });

  test('one JWT per origin, reused for every subscription there until an hour before it expires', async () => {
    const clock = new FakeClock();
    const vapid = new VapidSigner(clock);
    const first = await vapid.authorization(keys, subject, 'https://fcm.googleapis.com/fcm/send/a');
    expect(await vapid.authorization(keys, subject, 'https://fcm.googleapis.com/fcm/send/b')).toBe(first);
    const other = await vapid.authorization(keys, subject, 'https://updates.push.services.mozilla.com/wpush/v2/c');
    expect(other).not.toBe(first);
    expect(vapid.signatures).toBe(2);
    clock.advance(10.9 * 3_600_000);
    expect(await vapid.authorization(keys, subject, 'https://fcm.googleapis.com/fcm/send/a')).toBe(first);
    clock.advance(0.2 * 3_600_000);
    const renewed = await vapid.authorization(keys, subject, 'https://fcm.googleapis.com/fcm/send/a');
    expect(renewed).not.toBe(first);
    expect(vapid.signatures).toBe(3);
  });

  test('another key or subject signs its own JWT', async () => {
    const vapid = new VapidSigner(new FakeClock());
    const url = 'https://web.push.apple.com/x';
    const a = await vapid.authorization(keys, subject, url);
    const b = await vapid.authorization(keys, 'https://example.com/contact', url);
    const c = await vapid.authorization(generateVapidKeys(), subject, url);
    // A private key that does not match the public one is never covered by the cached JWT.
    const d = await vapid.authorization({ ...generateVapidKeys(), publicKey: keys.publicKey }, subject, url);
    expect(new Set([a, b, c, d]).size).toBe(4);
  });

  test('a lifetime over 24 hours is refused', () => {
    expect(() => new VapidSigner(new FakeClock(), MAX_JWT_LIFETIME_MS + 1)).toThrow('at most 24 hours');
  });
});
