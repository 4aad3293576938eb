import { describe, expect, test } from 'bun:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompress, servePrecompressed } from './precompressed';

const TEXT = 'const islet = "live activities";\n'.repeat(200);
const get = (headers: Record<string, string>, method = 'GET') => new Request('http://localhost/x.js', { method, headers });

describe('precompressed responses', () => {
  test('brotli first, then gzip, else the plain body; each with its own ETag and Vary', async () => {
    const asset = await precompress(TEXT, 'text/javascript', 'public, max-age=60');
    const br = servePrecompressed(get({ 'accept-encoding': 'gzip, deflate, br' }), asset);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(TEXT);
    const gz = servePrecompressed(get({ 'accept-encoding': 'gzip;q=0.8, br;q=0' }), asset);
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(TEXT);
    const plain = servePrecompressed(get({}), asset);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(TEXT);
    const any = servePrecompressed(get({ 'accept-encoding': '*' }), asset);
    expect(any.headers.get('content-encoding')).toBe('br');
    const etags = [br, gz, plain].map((r) => r.headers.get('etag'));
    expect(new Set(etags).size).toBe(3);
    for (const r of [br, gz, plain]) {
      expect(r.headers.get('vary')).toBe('accept-encoding');
      expect(r.headers.get('content-type')).toBe('text/javascript');
      expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    }
    expect(Number(br.headers.get('content-length'))).toBeLessThan(TEXT.length / 10);
  });

  test('If-None-Match with the chosen ETag (weak or in a list) is a 304 without a body; another coding\'s ETag is not', async () => {
    const asset = await precompress(TEXT, 'text/css', 'no-cache');
    const etag = servePrecompressed(get({ 'accept-encoding': 'br' }), asset).headers.get('etag')!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = servePrecompressed(get({ 'accept-encoding': 'br', 'if-none-match': tag }), asset);
      expect({ tag, status: res.status, body: await res.text(), etag: res.headers.get('etag') }).toEqual({ tag, status: 304, body: '', etag });
    }
    const gzip = servePrecompressed(get({ 'accept-encoding': 'gzip', 'if-none-match': etag }), asset);
    expect(gzip.status).toBe(200);
  });

  test('a body compression would not shrink is kept only as is; HEAD answers without a body', async () => {
    const asset = await precompress('x', 'text/plain', 'no-cache');
    const res = servePrecompressed(get({ 'accept-encoding': 'br, gzip' }), asset);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(await res.text()).toBe('x');
    const head = servePrecompressed(get({ 'accept-encoding': 'br, gzip' }, 'HEAD'), asset);
    expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
  });
});
