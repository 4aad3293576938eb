import { describe, expect, test } from 'bun:test';
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
