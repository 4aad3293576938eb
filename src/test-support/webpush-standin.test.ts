import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createECDH, createPrivateKey, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { encryptPayload } from '../modules/delivery/providers/webpush/webpush.encryption';
import { generateVapidKeys } from '../modules/delivery/providers/webpush/webpush.vapid';
import { benchSubscription, startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from './webpush-standin';

const vapid = generateVapidKeys();
const other = generateVapidKeys();
let push: WebPushStandin;
beforeAll(async () => {
  push = await startWebPushStandin({ benchSeed: 'seed', benchApplicationServerKey: vapid.publicKey });
});
afterAll(() => push.close());

interface Variation {
  claims?: Record<string, unknown>;
  signWith?: string;
  k?: string;
  headers?: Record<string, string | undefined>;
  body?: Uint8Array<ArrayBuffer>;
  text?: string;
}

/** A push built by hand (the JWT with jose), so each rule can be broken alone. */
async function send(sub: PushSubscriptionJSON, v: Variation = {}, service: WebPushStandin = push) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { aud: service.url, exp: now + 3600, sub: 'mailto:ops@example.com', ...v.claims };
  const jwt = await new SignJWT(claims).setProtectedHeader({ typ: 'JWT', alg: 'ES256' }).sign(createPrivateKey(v.signWith ?? vapid.privateKeyPem));
  const body = v.body ?? encryptPayload(Buffer.from(v.text ?? '{"web_push":8030}'), { p256dh: Buffer.from(sub.keys.p256dh, 'base64url'), auth: Buffer.from(sub.keys.auth, 'base64url') });
  const headers: Record<string, string> = {};
  const all = { 'content-encoding': 'aes128gcm', ttl: '60', urgency: 'normal', authorization: `vapid t=${jwt}, k=${v.k ?? vapid.publicKey}`, ...v.headers };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) headers[name] = value;
  const res = await fetch(sub.endpoint, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, reason: text ? (JSON.parse(text) as { reason: string }).reason : undefined, headers: res.headers };
}

describe('Web Push stand-in', () => {
  test('accepts a valid push with 201 and a Location, and the browser decrypts it', async () => {
    const sub = push.subscribe({ applicationServerKey: vapid.publicKey });
    const res = await send(sub, { text: '{"web_push":8030,"notification":{"title":"Hi"}}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toStartWith(`${push.url}/message/`);
    expect(push.inbox(sub.endpoint)).toEqual(['{"web_push":8030,"notification":{"title":"Hi"}}']);
    expect(push.requests.at(-1)!.vapid).toMatchObject({ aud: push.url, sub: 'mailto:ops@example.com', k: vapid.publicKey });
  });

  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Variation, number, string][] = [
    ['another content coding (aesgcm)', () => ({ headers: { 'content-encoding': 'aesgcm' } }), 400, 'UnsupportedContentEncoding'],
    ['two content codings', () => ({ headers: { 'content-encoding': 'aes128gcm, aes128gcm' } }), 400, 'UnsupportedContentEncoding'],
    ['no TTL', () => ({ headers: { ttl: undefined } }), 400, 'BadTtl'],
    ['an unknown Urgency', () => ({ headers: { urgency: 'urgent' } }), 400, 'BadUrgency'],
    ['a Topic of 33 characters', () => ({ headers: { topic: 'x'.repeat(33) } }), 400, 'BadTopic'],
    ['a Topic outside base64url', () => ({ headers: { topic: 'a b' } }), 400, 'BadTopic'],
    ['a body over 4096 bytes', () => ({ body: randomBytes(4097) }), 413, 'PayloadTooLarge'],
    ['no Authorization', () => ({ headers: { authorization: undefined } }), 401, 'MissingAuthorization'],
    ['a Bearer token', () => ({ headers: { authorization: 'Bearer abc' } }), 401, 'BadAuthorization'],
    ['a JWT signed by another key than k', () => ({ signWith: other.privateKeyPem }), 403, 'BadJwtToken'],
    ['aud another origin', () => ({ claims: { aud: 'https://web.push.apple.com' } }), 403, 'BadJwtToken'],
    ['aud with a path', () => ({ claims: { aud: `${push.url}/push` } }), 403, 'BadJwtToken'],
    ['exp more than 24 hours ahead', () => ({ claims: { exp: now() + 24 * 3600 + 60 } }), 403, 'BadJwtToken'],
    ['exp passed', () => ({ claims: { exp: now() - 1 } }), 403, 'ExpiredJwtToken'],
    ['no sub', () => ({ claims: { sub: undefined } }), 403, 'BadJwtToken'],
    ['sub at localhost', () => ({ claims: { sub: 'mailto:openclaw@localhost' } }), 403, 'BadJwtToken'],
    ['sub in angle brackets', () => ({ claims: { sub: 'mailto:<ops@example.com>' } }), 403, 'BadJwtToken'],
    ['sub an http URL', () => ({ claims: { sub: 'http://example.com' } }), 403, 'BadJwtToken'],
    ['k another key than the subscription was made with', () => ({ signWith: other.privateKeyPem, k: other.publicKey }), 403, 'VapidPkHashMismatch'],
    ['a body the browser cannot decrypt', () => ({ body: encryptPayload(Buffer.from('x'), { p256dh: createECDH('prime256v1').generateKeys(), auth: randomBytes(16) }) }), 400, 'UndecryptableByBrowser'],
  ];
  for (const [what, variation, status, reason] of cases) {
    test(`refuses ${what}: ${status} ${reason}, and nothing reaches the browser`, async () => {
      const sub = push.subscribe({ applicationServerKey: vapid.publicKey });
      expect(await send(sub, variation())).toMatchObject({ status, reason });
      expect(push.inbox(sub.endpoint)).toEqual([]);
    });
  }

  test('a subscription without an application server key takes any VAPID key', async () => {
    const sub = push.subscribe();
    expect((await send(sub, { signWith: other.privateKeyPem, k: other.publicKey })).status).toBe(201);
  });

  test('410 once the subscription is gone; 429 with Retry-After as many times as asked, then 201', async () => {
    const [gone, busy] = [push.subscribe(), push.subscribe()];
    push.gone(gone.endpoint);
    expect(await send(gone)).toMatchObject({ status: 410, reason: 'Unregistered' });
    push.tooMany(busy.endpoint, 30, 2);
    for (let i = 0; i < 2; i++) {
      const res = await send(busy);
      expect([res.status, res.reason, res.headers.get('retry-after')]).toEqual([429, 'TooManyRequests', '30']);
    }
    expect((await send(busy)).status).toBe(201);
    expect(push.inbox(busy.endpoint)).toHaveLength(1);
  });

  test('an unknown subscription is 404; bench subscriptions exist from the seed with their application server key', async () => {
    expect((await send({ ...push.subscribe(), endpoint: `${push.url}/push/nobody` })).status).toBe(404);
    const bench = benchSubscription(push.url, 'seed', 12);
    expect((await send(bench)).status).toBe(201);
    expect((await send(bench, { signWith: other.privateKeyPem, k: other.publicKey })).status).toBe(403);
  });
});

describe('Web Push stand-in for benchmarks (decryptEvery)', () => {
  test('decrypts one accepted push in N; the others still pass every header and VAPID check', async () => {
    const sampled = await startWebPushStandin({ decryptEvery: 2 });
    try {
      const sub = sampled.subscribe({ applicationServerKey: vapid.publicKey });
      const statuses = [];
      for (const text of ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']) statuses.push((await send(sub, { text }, sampled)).status);
      expect(statuses).toEqual([201, 201, 201, 201]);
      expect(sampled.accepted()).toBe(4);
      expect(sampled.inbox(sub.endpoint)).toEqual(['{"n":2}', '{"n":4}']);
      // Not decrypted is not unchecked: a wrong signature or a missing TTL is still refused.
      expect((await send(sub, { signWith: other.privateKeyPem }, sampled)).reason).toBe('BadJwtToken');
      expect((await send(sub, { headers: { ttl: undefined } }, sampled)).reason).toBe('BadTtl');
      // A body no browser could decrypt fails when its turn to be decrypted comes.
      const garbage = [(await send(sub, { body: randomBytes(200) }, sampled)).status, (await send(sub, { body: randomBytes(200) }, sampled)).status];
      expect(garbage.sort()).toEqual([201, 400]);
    } finally {
      await sampled.close();
    }
  });
});
