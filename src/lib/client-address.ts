/**
 * The address of the client that sent `request`, for the audit log and sign-in throttling; `local`
 * without a listening server (tests calling app.handle). The one place to teach about trusted
 * proxies (X-Forwarded-For from `[server] trusted_proxies`).
 */
export function clientAddress(request: Request, server: { requestIP(request: Request): { address: string } | null } | null | undefined): string {
  return server?.requestIP(request)?.address ?? 'local';
}
