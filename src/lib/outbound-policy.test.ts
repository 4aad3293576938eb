import { describe, expect, test } from 'bun:test';
import { classifyAddress, endpointProblem, guardedLookup, resolvedEndpointProblem } from './outbound-policy';

// Addresses are data here: nothing is sent to any of them.
describe('classifyAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.100.100.200', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['17.188.128.1', 'public'],
    ['172.32.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['2a00:1450:4001:80b::200a', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind as never);
  });

  test('names and malformed text are not addresses', () => {
    for (const text of ['example.com', '1.2.3', '1.2.3.256', ':::1', '1::2::3', 'gggg::1']) expect(classifyAddress(text)).toBeUndefined();
  });
});

describe('endpointProblem', () => {
  const closed = { allowPrivate: false };
  const open = { allowPrivate: true };

  test('https to a public host passes; loopback, private and metadata are refused without the flag', () => {
    expect(endpointProblem('https://api.push.apple.com', 'endpoint', closed)).toBeUndefined();
    expect(endpointProblem('https://127.0.0.1', 'endpoint', closed)).toBe(
      'endpoint must not be a loopback address; only public addresses are allowed unless [security] allow_private_endpoints = true',
    );
    for (const url of ['https://localhost:9443', 'https://[::1]/', 'https://[::ffff:127.0.0.1]', 'https://2130706433/', 'https://0x7f.1/', 'https://169.254.169.254/latest', 'https://10.0.0.5', 'https://[fd00::1]'])
      expect(endpointProblem(url, 'endpoint', closed)).toMatch(/^endpoint must not be a /);
  });

  test('the flag allows private addresses, and plain http only to them', () => {
    expect(endpointProblem('https://127.0.0.1:9443', 'endpoint', open)).toBeUndefined();
    expect(endpointProblem('http://127.0.0.1:9444', 'endpoint', open)).toBeUndefined();
    expect(endpointProblem('http://fcm.googleapis.com', 'endpoint', open)).toMatch(/must be an https URL/);
    expect(endpointProblem('http://127.0.0.1:9444', 'endpoint', closed)).toMatch(/loopback/);
  });

  test('other schemes, credentials and junk are refused, naming the field', () => {
    expect(endpointProblem('ftp://example.com', 'serviceAccount.token_uri', closed)).toBe('serviceAccount.token_uri must be an https URL');
    expect(endpointProblem('not a url', 'endpoint', closed)).toBe('endpoint must be an https URL');
    expect(endpointProblem('https://u:p@example.com', 'endpoint', closed)).toBe('endpoint must not carry credentials');
  });

  test('a name that resolves to a private address is refused; one that resolves publicly passes', async () => {
    const resolve = async (host: string) => (host === 'evil.example' ? ['93.184.216.34', '10.0.0.1'] : ['17.188.128.1']);
    expect(await resolvedEndpointProblem('https://evil.example', 'endpoint', { allowPrivate: false, resolve })).toBe(
      'endpoint host evil.example resolves to a private address; only public addresses are allowed unless [security] allow_private_endpoints = true',
    );
    expect(await resolvedEndpointProblem('https://good.example', 'endpoint', { allowPrivate: false, resolve })).toBeUndefined();
    expect(await resolvedEndpointProblem('https://evil.example', 'endpoint', { allowPrivate: true, resolve })).toBeUndefined();
    const fails = async () => Promise.reject(new Error('ENOTFOUND'));
    expect(await resolvedEndpointProblem('https://nowhere.example', 'endpoint', { allowPrivate: false, resolve: fails })).toBe('endpoint host nowhere.example does not resolve');
  });
});

describe('guardedLookup', () => {
  // localhost resolves from /etc/hosts: no query leaves the machine.
  const lookup = (policy: { allowPrivate: boolean }) =>
    new Promise<string>((resolve) => guardedLookup(policy)!('localhost', {}, (error, address) => resolve(error ? `refused: ${error.message}` : String(address))));

  test('refuses, at connection time, a name that resolves to a loopback address', async () => {
    expect(await lookup({ allowPrivate: false })).toMatch(/^refused: localhost resolves to a loopback address$/);
  });

  test('is not needed when private addresses are allowed', () => {
    expect(guardedLookup({ allowPrivate: true })).toBeUndefined();
  });
});
