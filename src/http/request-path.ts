/**
 * The path of a request, without throwing: an HTTP/1.0 request without a Host header reaches us
 * with a relative URL (`/healthz`), which `new URL()` refuses (and a throw in a response hook
 * would end the process).
 * @example requestPath(new Request('http://x/a?b')) // '/a'
 */
export function requestPath(request: Request): string {
  const url = request.url;
  const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}
