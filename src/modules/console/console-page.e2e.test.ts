import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('console-page-e2e', (database) => {
  // The console's page, scripts and styles through a real server process: compressed once, served
  // by Accept-Encoding with an ETag each, 304 when the browser has them.
  let dir: string;
  let server: SpawnedServer;
  /** Raw bytes as sent: Bun's fetch would otherwise decode them. */
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers, decompress: false } as RequestInit);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-console-page-'));
    server = await spawnServer(dir, `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "console-page-admin"\n[database]\npath = "data/islet.db"\n`);
  }, 30_000);
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  describe('console files', () => {
    test('the page names its scripts and styles under /console/_assets/, served compressed with an ETag and immutable caching', async () => {
      const page = await (await get('/console')).text();
      const assets = [...page.matchAll(/(?:src|href)="(\/[^"/][^"]*)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const path of assets) {
        expect(path.startsWith('/console/_assets/')).toBe(true);
        const plain = await get(path);
        const text = await plain.text();
        const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
        const gz = await get(path, { 'accept-encoding': 'gzip' });
        expect({
          path,
          plain: [plain.status, plain.headers.get('content-encoding'), plain.headers.get('cache-control')],
          br: [br.status, br.headers.get('content-encoding'), br.headers.get('vary'), br.headers.get('x-content-type-options')],
          gz: [gz.status, gz.headers.get('content-encoding')],
        }).toEqual({
          path,
          plain: [200, null, 'public, max-age=31536000, immutable'],
          br: [200, 'br', 'accept-encoding', 'nosniff'],
          gz: [200, 'gzip'],
        });
        expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(text);
        expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(text);
        expect(Number(br.headers.get('content-length'))).toBeLessThan(text.length / 2);
      }
    });

    test('a request with the ETag it has gets a 304 without a body, for the page and its files', async () => {
      const page = await (await get('/console')).text();
      const script = /src="([^"]+)"/.exec(page)![1]!;
      for (const path of ['/console', '/console/apps/a1', script]) {
        const first = await get(path, { 'accept-encoding': 'br' });
        await first.arrayBuffer();
        const etag = first.headers.get('etag')!;
        expect(etag).toMatch(/^"[\w-]+"$/);
        const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': etag });
        expect({ path, status: again.status, body: await again.text(), etag: again.headers.get('etag') }).toEqual({ path, status: 304, body: '', etag });
      }
      // The page keeps its security policy header, compressed or not.
      const compressed = await get('/console', { 'accept-encoding': 'gzip' });
      expect(compressed.headers.get('content-encoding')).toBe('gzip');
      expect(compressed.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    test('an unknown file under /console/_assets/ is a 404 problem, other methods go to the application', async () => {
      const missing = await get('/console/_assets/chunk-nope.js');
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { status: number }).status).toBe(404);
      const post = await fetch(`${server.url}/console/_assets/x.js`, { method: 'POST' });
      expect(post.status).toBeGreaterThanOrEqual(400);
      expect(post.status).toBeLessThan(500);
    });
  });
});
