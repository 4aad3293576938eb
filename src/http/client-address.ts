import { clientAddressResolver } from '../lib/trusted-proxies';

/**
 * The client address of each request, worked out once when it arrives (from the socket's peer and,
 * behind `[server] trusted_proxies`, X-Forwarded-For): what the throttles key on.
 */
export function clientAddresses(trustedProxies: string[]) {
  const resolve = clientAddressResolver(trustedProxies);
  const known = new WeakMap<Request, string>();
  return {
    remember(request: Request, peer: string | undefined): void {
      known.set(request, resolve(peer, request.headers.get('x-forwarded-for')));
    },
    /** Without a listening server (tests calling app.handle) every request is one address, `local`. */
    of(request: Request): string {
      return known.get(request) ?? 'local';
    },
  };
}

export type ClientAddresses = ReturnType<typeof clientAddresses>;
