import { describe, expect, test } from 'bun:test';
import { createECDH, randomBytes } from 'node:crypto';
import { checkSubscription, httpsUrlProblem, parseSubscription, subjectProblem } from './web-push.validation';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };
const browserKey = () => {
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  return ua.getPublicKey().toString('base64url');
};
const valid = () => ({
  endpoint: 'https://web.push.apple.com/QGq1bm2xUw3kLBgXaSKnmDg',
  expirationTime: null,
  keys: { p256dh: browserKey(), auth: randomBytes(16).toString('base64url') },
});
const problemOf = (input: unknown, policy = closed) => {
  const parsed = parseSubscription(input, policy);
  return 'problem' in parsed ? parsed.problem : undefined;
};

describe('subject', () => {
  test.each(['mailto:ops@example.com', 'mailto:push+alerts@mail.example.co.uk', 'https://example.com', 'https://example.com/contact'])('%s is a contact Apple accepts', (s) => {
    expect(subjectProblem(s)).toBeUndefined();
  });

  test.each([
    'ops@example.com',
    'mailto:<ops@example.com>',
    'mailto: ops@example.com',
    'mailto:openclaw@localhost',
    'mailto:ops@example',
    'http://example.com',
    'https://localhost:8443',
    'https://app.localhost',
    'https://127.0.0.1',
    'https://[::1]/',
    'https://user:pw@example.com',
    'ftp://example.com',
    '',
    42,
    undefined,
  ])('%p is refused naming subject', (s) => {
    expect(subjectProblem(s)).toEqual({
      field: 'subject',
      detail: 'subject must be a mailto: address or an https: URL, without spaces or angle brackets, not at localhost',
    });
  });

  test('defaultUrl and url must be https URLs', () => {
    expect(httpsUrlProblem('https://example.com/inbox', 'defaultUrl')).toBeUndefined();
    for (const bad of ['http://example.com', 'javascript:alert(1)', '/relative', 7])
      expect(httpsUrlProblem(bad, 'defaultUrl')).toEqual({ field: 'defaultUrl', detail: 'defaultUrl must be an https URL' });
  });
});

describe('subscription', () => {
  test('what PushSubscription.toJSON() gives is decoded: the point, the auth secret, the endpoint', () => {
    const json = valid();
    const parsed = parseSubscription(json, closed);
    expect('subscription' in parsed).toBe(true);
    const { subscription } = parsed as Extract<typeof parsed, { subscription: unknown }>;
    expect(subscription.endpoint).toBe(json.endpoint);
    expect(subscription.p256dh.length).toBe(65);
    expect(subscription.auth.length).toBe(16);
    expect(subscription.expirationTime).toBeNull();
  });

  test.each([
    ['not an object', 'x', 'subscription'],
    ['an array', [], 'subscription'],
    ['no endpoint', { ...valid(), endpoint: undefined }, 'subscription.endpoint'],
    ['plain http to a public host', { ...valid(), endpoint: 'http://web.push.apple.com/x' }, 'subscription.endpoint'],
    ['a loopback address', { ...valid(), endpoint: 'https://127.0.0.1:8443/push/x' }, 'subscription.endpoint'],
    ['localhost', { ...valid(), endpoint: 'https://localhost/push/x' }, 'subscription.endpoint'],
    ['the cloud metadata address', { ...valid(), endpoint: 'https://169.254.169.254/latest' }, 'subscription.endpoint'],
    ['a private address as IPv4-mapped IPv6', { ...valid(), endpoint: 'https://[::ffff:10.0.0.1]/x' }, 'subscription.endpoint'],
    ['credentials in the URL', { ...valid(), endpoint: 'https://u:p@web.push.apple.com/x' }, 'subscription.endpoint'],
    ['a huge endpoint', { ...valid(), endpoint: `https://web.push.apple.com/${'x'.repeat(2100)}` }, 'subscription.endpoint'],
    ['a negative expirationTime', { ...valid(), expirationTime: -1 }, 'subscription.expirationTime'],
    ['no keys', { ...valid(), keys: undefined }, 'subscription.keys'],
    ['a 64-byte p256dh', { ...valid(), keys: { ...valid().keys, p256dh: Buffer.alloc(64, 4).toString('base64url') } }, 'subscription.keys.p256dh'],
    ['a compressed point', { ...valid(), keys: { ...valid().keys, p256dh: Buffer.concat([Buffer.from([2]), randomBytes(32)]).toString('base64url') } }, 'subscription.keys.p256dh'],
    ['65 bytes off the curve', { ...valid(), keys: { ...valid().keys, p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url') } }, 'subscription.keys.p256dh'],
    ['p256dh not base64url', { ...valid(), keys: { ...valid().keys, p256dh: 'not base64!' } }, 'subscription.keys.p256dh'],
    ['a 15-byte auth', { ...valid(), keys: { ...valid().keys, auth: randomBytes(15).toString('base64url') } }, 'subscription.keys.auth'],
    ['a numeric auth', { ...valid(), keys: { ...valid().keys, auth: 16 } }, 'subscription.keys.auth'],
  ])('%s is refused naming %s', (_what, input, field) => {
    const problem = problemOf(input);
    expect(problem?.field).toBe(field as string);
    expect(problem?.detail).toStartWith(field as string);
  });

  test('padded base64 keys (some distributors pad) are accepted', () => {
    const json = valid();
    const padded = { ...json, keys: { p256dh: `${json.keys.p256dh}=`, auth: `${json.keys.auth}==` } };
    expect(problemOf(padded)).toBeUndefined();
  });

  test('loopback http is allowed only with [security] allow_private_endpoints', () => {
    const local = { ...valid(), endpoint: 'http://127.0.0.1:8090/notify/abc' };
    expect(problemOf(local, closed)?.detail).toStartWith('subscription.endpoint must not be a loopback address');
    expect(problemOf(local, open)).toBeUndefined();
  });

  test('a name resolving to a private address is refused at registration; a public one passes', async () => {
    const resolveTo = (address: string) => ({ allowPrivate: false, resolve: async () => [address] });
    const json = { ...valid(), endpoint: 'https://push.example.com/x' };
    const refused = await checkSubscription(json, resolveTo('10.1.2.3'));
    expect('problem' in refused && refused.problem).toEqual({
      field: 'subscription.endpoint',
      detail: 'subscription.endpoint host push.example.com resolves to a private address; only public addresses are allowed unless [security] allow_private_endpoints = true',
    });
    expect('subscription' in (await checkSubscription(json, resolveTo('17.188.128.1')))).toBe(true);
  });
});
