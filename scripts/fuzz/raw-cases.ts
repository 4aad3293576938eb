/** Requests only a raw socket can send: malformed lines, oversize heads, bad chunking, CONNECT, slow bodies. */
export interface RawCase {
  label: string;
  parts: string[];
  gapMs?: number;
  /** The server rightly waits for more (a body shorter than declared): no answer is expected. */
  waits?: boolean;
}

const HOST = 'Host: localhost';

export function rawCases(): RawCase[] {
  const big = 'a'.repeat(0x10000);
  return [
    { label: 'garbage request line', parts: ['GARBAGE\r\n\r\n'] },
    { label: 'HTTP/3.0', parts: [`GET / HTTP/3.0\r\n${HOST}\r\n\r\n`] },
    { label: 'HTTP/1.0 without host', parts: ['GET /healthz HTTP/1.0\r\n\r\n'] },
    { label: 'unknown method', parts: [`FOO / HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'CONNECT authority form', parts: ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'] },
    { label: 'TRACE', parts: [`TRACE /console HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'absolute form', parts: [`GET http://evil.example/api/admin/apps HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'asterisk form', parts: [`OPTIONS * HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'oversize request line', parts: [`GET /${'a'.repeat(100_000)} HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'oversize header', parts: [`GET / HTTP/1.1\r\n${HOST}\r\nX-A: ${'a'.repeat(100_000)}\r\n\r\n`] },
    { label: 'many headers', parts: [`GET / HTTP/1.1\r\n${HOST}\r\n${Array.from({ length: 500 }, (_, i) => `X-${i}: a`).join('\r\n')}\r\n\r\n`] },
    { label: 'header without colon', parts: [`GET / HTTP/1.1\r\n${HOST}\r\nBad Header\r\n\r\n`] },
    { label: 'NUL in header', parts: [`GET / HTTP/1.1\r\n${HOST}\r\nX: a\u0000b\r\n\r\n`] },
    { label: 'bare LF', parts: ['GET / HTTP/1.1\nHost: localhost\n\n'] },
    { label: 'short host', parts: ['GET /ab/api/admin/apps HTTP/1.1\r\nHost: ab\r\n\r\n'] },
    { label: 'negative content-length', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Length: -1\r\n\r\n`] },
    { label: 'two content-lengths', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`] },
    { label: 'content-length and chunked', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`] },
    { label: 'bad chunk size', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`] },
    { label: 'huge chunk size', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nabc\r\n`] },
    {
      label: 'chunked body over the limit',
      parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, `10000\r\n${big}\r\n`, `10000\r\n${big}\r\n0\r\n\r\n`],
      gapMs: 5,
    },
    { label: 'declared length over the limit', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nContent-Length: 999999999999\r\n\r\n{`] },
    {
      label: 'slow body',
      parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n`, '{"tok', 'en":', '"slow"}'],
      gapMs: 150,
    },
    { label: 'body shorter than declared', parts: [`POST /console/api/session HTTP/1.1\r\n${HOST}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"token":"x"}`], waits: true },
    { label: 'pipelined requests', parts: [`GET /healthz HTTP/1.1\r\n${HOST}\r\n\r\nGET /readyz HTTP/1.1\r\n${HOST}\r\n\r\nGET /__proto__ HTTP/1.1\r\n${HOST}\r\n\r\n`] },
    { label: 'upgrade to websocket', parts: [`GET /console HTTP/1.1\r\n${HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`] },
    { label: 'h2c upgrade', parts: [`GET / HTTP/1.1\r\n${HOST}\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n`] },
    { label: 'HTTP/2 preface', parts: ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'] },
    { label: 'TLS hello on plain port', parts: ['\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003'] },
  ];
}
