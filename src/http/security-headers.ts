/**
 * Headers every answer carries: no MIME sniffing, no Referer leaking a URL elsewhere, and HSTS when
 * the server is reached over https (`[server] public_url`).
 */
export function securityHeaders(publicUrl: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
  if ((publicUrl ?? '').toLowerCase().startsWith('https://')) headers['strict-transport-security'] = 'max-age=31536000';
  return headers;
}

/** Sets each of `headers` the response does not already have; returns the same response. */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) if (!response.headers.has(name)) response.headers.set(name, value);
  return response;
}

const BASE_POLICY = "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The console's policy: everything from this server, no inline code, never framed. */
export const CONSOLE_CSP = BASE_POLICY;

/** Swagger UI's policy: as the console's, plus the inline style attributes Swagger UI sets on elements. */
export const SWAGGER_CSP = `${BASE_POLICY}; style-src 'self' 'unsafe-inline'`;
