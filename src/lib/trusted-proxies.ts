import { BlockList, isIP } from 'node:net';

/** `10.0.0.0/8`, `::1/128` or a bare address; undefined when it is not one. */
export function parseCidr(text: string): { address: string; prefix: number; type: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * The client address of a request: the peer's, unless the peer is one of `[server] trusted_proxies`;
 * then the right-most X-Forwarded-For entry that is not a trusted proxy (entries further left are
 * whatever the client wrote, so they are never believed).
 * @example const of = clientAddressResolver(['10.0.0.0/8']); of('10.0.0.2', '203.0.113.9') // '203.0.113.9'
 */
export function clientAddressResolver(trusted: string[]): (peer: string | undefined, forwardedFor: string | null) => string {
  const list = new BlockList();
  for (const entry of trusted) {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`not an address or CIDR range: ${entry}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.type);
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
  return (peer, forwardedFor) => {
    if (peer === undefined) return 'local';
    if (trusted.length === 0 || !isTrusted(peer) || !forwardedFor) return peer;
    const hops = forwardedFor.split(',').map((s) => s.trim());
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return peer;
      if (!isTrusted(hop)) return hop;
    }
    return hops[0] ?? peer;
  };
}
