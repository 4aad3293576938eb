import { describe, expect, test } from 'bun:test';
import { FakeClock } from './clock';
import { failureThrottle } from './failure-throttle';
import { rateLimiter } from './rate-limiter';
import { clientAddressResolver, parseCidr } from './trusted-proxies';

describe('client address behind trusted proxies', () => {
  const resolve = clientAddressResolver(['127.0.0.1', '10.0.0.0/8']);

  test('a trusted proxy’s X-Forwarded-For names the client: the right-most entry that is not a proxy', () => {
    expect(resolve('127.0.0.1', '198.51.100.7')).toBe('198.51.100.7');
    expect(resolve('127.0.0.1', '6.6.6.6, 198.51.100.7, 10.1.2.3')).toBe('198.51.100.7');
    expect(resolve('::ffff:127.0.0.1', '198.51.100.7')).toBe('198.51.100.7');
  });

  test('anyone else’s X-Forwarded-For is ignored, and a proxy without one is the client', () => {
    expect(resolve('203.0.113.5', '1.2.3.4')).toBe('203.0.113.5');
    expect(resolve('127.0.0.1', null)).toBe('127.0.0.1');
    expect(resolve('127.0.0.1', 'garbage')).toBe('127.0.0.1');
    expect(clientAddressResolver([])('127.0.0.1', '1.2.3.4')).toBe('127.0.0.1');
  });

  test('CIDR entries are parsed or refused', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, type: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, type: 'ipv6' });
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '1.2.3.4/x']) expect(parseCidr(bad)).toBeUndefined();
  });
});

describe('memory stays bounded under address churn', () => {
  test('the failure throttle keeps at most maxTracked addresses, dropping the stalest', () => {
    const clock = new FakeClock();
    const throttle = failureThrottle(clock, { maxTracked: 100, freeFailures: 0 });
    for (let i = 0; i < 10_000; i++) throttle.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).toBe(100);
    expect(throttle.wait('10.0.39.15')).toBeGreaterThan(0);
    expect(throttle.wait('10.0.0.1')).toBe(0);
  });

  test('one address failing never delays another', () => {
    const throttle = failureThrottle(new FakeClock(), { freeFailures: 2 });
    for (let i = 0; i < 50; i++) throttle.fail('198.51.100.7');
    expect(throttle.wait('198.51.100.7')).toBeGreaterThan(0);
    expect(throttle.wait('198.51.100.8')).toBe(0);
  });

  test('the rate limiter keeps at most maxKeys buckets', () => {
    const clock = new FakeClock();
    const limit = rateLimiter(1, clock, 50);
    for (let i = 0; i < 1000; i++) limit(`k${i}`);
    // A forgotten key starts with a full bucket again: 2 tokens.
    expect([limit('k0'), limit('k0'), limit('k0')]).toEqual([0, 0, 1]);
  });
});
