import { lookup as dnsLookupCallback } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Where Islet may send provider requests (APNs, FCM, a service account's token_uri): an https URL
 * whose host is a public address. Loopback, private, link-local (cloud metadata), CGNAT,
 * unique-local and reserved addresses are refused, as IPv4, IPv6, IPv4-mapped IPv6 and as names
 * that resolve there, unless `[security] allow_private_endpoints` is set (tests, stand-ins), which
 * also allows plain http to those addresses. Public hosts always need https.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'unique-local'
  | 'multicast'
  | 'reserved';

type V4Range = [base: number, bits: number, kind: AddressClass];

const V4_RANGES: V4Range[] = [
  [ip4(0, 0, 0, 0), 8, 'unspecified'],
  [ip4(10, 0, 0, 0), 8, 'private'],
  [ip4(100, 64, 0, 0), 10, 'shared (CGNAT)'],
  [ip4(127, 0, 0, 0), 8, 'loopback'],
  // Includes 169.254.169.254, the metadata service of most clouds.
  [ip4(169, 254, 0, 0), 16, 'link-local'],
  [ip4(172, 16, 0, 0), 12, 'private'],
  [ip4(192, 0, 0, 0), 24, 'reserved'],
  [ip4(192, 0, 2, 0), 24, 'reserved'],
  [ip4(192, 88, 99, 0), 24, 'reserved'],
  [ip4(192, 168, 0, 0), 16, 'private'],
  [ip4(198, 18, 0, 0), 15, 'reserved'],
  [ip4(198, 51, 100, 0), 24, 'reserved'],
  [ip4(203, 0, 113, 0), 24, 'reserved'],
  [ip4(224, 0, 0, 0), 4, 'multicast'],
  [ip4(240, 0, 0, 0), 4, 'reserved'],
];

function ip4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

function classifyV4(value: number): AddressClass {
  for (const [base, bits, kind] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === base) return kind;
  }
  return 'public';
}

function parseV4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return ip4(Number(parts[0]), Number(parts[1]), Number(parts[2]), Number(parts[3]));
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function parseV6(text: string): number[] | undefined {
  let address = text.toLowerCase();
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  if (address.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(address.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >>> 16, v4 & 0xffff];
    address = `${address.slice(0, lastColon + 1)}${tail.length ? '0:0' : ''}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - head.length - rest.length;
  const all = halves.length === 2 ? [...head, ...Array(Math.max(fill, 0)).fill(0), ...rest] : head;
  if (all.length !== 8 || all.some((g) => Number.isNaN(g)) || (halves.length === 2 && fill < 1)) return undefined;
  if (tail.length) [all[6], all[7]] = tail;
  return all;
}

function classifyV6(g: number[]): AddressClass {
  const embeddedV4 = (hi: number, lo: number) => classifyV4(((hi << 16) >>> 0) + lo);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) carry an IPv4 address.
  if (zeroUpTo(5) && g[5] === 0xffff) return embeddedV4(g[6]!, g[7]!);
  if (zeroUpTo(6)) return embeddedV4(g[6]!, g[7]!);
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address inside them.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embeddedV4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return embeddedV4(g[1]!, g[2]!);
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private';
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  // Documentation (2001:db8::/32), Teredo (2001::/32), discard (100::/64).
  if (g[0] === 0x2001 && (g[1] === 0x0db8 || g[1] === 0)) return 'reserved';
  if (g[0] === 0x100 && zeroUpTo(4)) return 'reserved';
  return 'public';
}

/**
 * What kind of address `ip` is (IPv4, IPv6, IPv4-mapped IPv6, with or without brackets).
 * @example classifyAddress('::ffff:127.0.0.1') // 'loopback'
 */
export function classifyAddress(ip: string): AddressClass | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseV4(bare);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = bare.includes(':') ? parseV6(bare) : undefined;
  return v6 ? classifyV6(v6) : undefined;
}

export interface OutboundPolicy {
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (tests give a fake; default the system resolver). */
  resolve?: (host: string) => Promise<string[]>;
}

const systemResolve = async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Names that are the local machine without asking DNS. */
const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * Checks an endpoint without DNS: the URL, its scheme, and a host that is an address literal or a
 * local name. Returns what is wrong, naming `field`, or undefined.
 * @example endpointProblem('https://127.0.0.1:9443', 'endpoint', { allowPrivate: false }) // 'endpoint must not be a loopback address …'
 */
export function endpointProblem(url: string, field: string, policy: OutboundPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${field} must be an https URL`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${field} must be an https URL`;
  if (parsed.username || parsed.password) return `${field} must not carry credentials`;
  const host = parsed.hostname.toLowerCase();
  const kind = classifyAddress(host) ?? (isLocalName(host) ? 'loopback' : undefined);
  if (kind !== undefined && kind !== 'public' && !policy.allowPrivate) return refusal(field, kind);
  if (parsed.protocol === 'http:' && !(policy.allowPrivate && kind !== undefined && kind !== 'public')) {
    return `${field} must be an https URL (plain http only to a private address with [security] allow_private_endpoints)`;
  }
  return undefined;
}

/**
 * The full check: `endpointProblem`, then every address the host name resolves to. Run when an
 * endpoint is set and again before connecting, since DNS answers can change.
 */
export async function resolvedEndpointProblem(url: string, field: string, policy: OutboundPolicy): Promise<string | undefined> {
  const problem = endpointProblem(url, field, policy);
  if (problem) return problem;
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || isLocalName(host.toLowerCase())) return undefined;
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch {
    return `${field} host ${host} does not resolve`;
  }
  for (const address of addresses) {
    const kind = classifyAddress(address) ?? 'reserved';
    if (kind !== 'public' && !policy.allowPrivate) return refusal(field, kind, host);
  }
  if (parsed.protocol === 'http:' && addresses.every((a) => classifyAddress(a) === 'public')) {
    return `${field} must be an https URL (plain http only to a private address with [security] allow_private_endpoints)`;
  }
  return undefined;
}

function refusal(field: string, kind: AddressClass, host?: string): string {
  const what = host ? `${field} host ${host} resolves to a ${kind} address` : `${field} must not be a ${kind} address`;
  return `${what}; only public addresses are allowed unless [security] allow_private_endpoints = true`;
}

/**
 * `resolvedEndpointProblem` for senders, run before each connection attempt: answers are kept
 * for `ttlMs` per URL origin, so a busy channel does not ask DNS for every push.
 */
export function outboundGuard(policy: OutboundPolicy, ttlMs = 60_000): (url: string | URL, field: string) => Promise<string | undefined> {
  const checked = new Map<string, { at: number; problem: Promise<string | undefined> }>();
  return (target, field) => {
    // A sender passes the URL it already parsed (once per push on the hot path).
    const parsed = typeof target === 'string' ? (URL.canParse(target) ? new URL(target) : undefined) : target;
    const key = `${field} ${parsed ? parsed.origin : target}`;
    const now = Date.now();
    const hit = checked.get(key);
    if (hit && now - hit.at < ttlMs) return hit.problem;
    if (checked.size > 1000) checked.clear();
    const problem = resolvedEndpointProblem(typeof target === 'string' ? target : target.href, field, policy);
    checked.set(key, { at: now, problem });
    return problem;
  };
}

type LookupCallback = (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * A `lookup` for `net`/`tls`/`http2` connections that refuses, at connection time, a name that
 * resolves to a non-public address: the address checked is the address connected to, so a DNS
 * answer that changed after `resolvedEndpointProblem` cannot slip through. Undefined when the
 * policy allows private addresses (nothing to refuse). Address literals never reach a lookup.
 */
export function guardedLookup(policy: OutboundPolicy) {
  if (policy.allowPrivate) return undefined;
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookupCallback(hostname, { family: options.family ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as unknown as { address: string; family: number }[];
      const refused = list.find((a) => classifyAddress(a.address) !== 'public');
      if (refused || list.length === 0) {
        const kind = refused ? classifyAddress(refused.address) ?? 'reserved' : 'unknown';
        return callback(Object.assign(new Error(`${hostname} resolves to a ${kind} address`), { code: 'EOUTBOUNDPOLICY' }), []);
      }
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
