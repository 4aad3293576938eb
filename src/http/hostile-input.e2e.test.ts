import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsKey } from '../test-support/delivery-fixtures';
import { rawRequest } from '../test-support/raw-http';
import { spawnServer, type SpawnedServer } from '../test-support/spawn-server';

// Issue 15, through a real server process and raw sockets: what the server layer answers to
// hostile input, what may be sent where, which identifiers are accepted, the throttles, the
// headers and the files. `closed` servers run without [security] allow_private_endpoints.
const ADMIN = 'hostile-admin-token';
const KEY = 'sk_hostile_service_key_0123456789';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

let dir: string;
let server: SpawnedServer;
const host = () => new URL(server.url).host;
const raw = (text: string | string[], options?: { gapMs?: number; waitMs?: number }) => rawRequest(server.url, text, options);
const json = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.json() });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-hostile-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\npublic_url = "https://islet.example.com"\ntrusted_proxies = ["127.0.0.1"]\n` +
      `[admin]\ntoken = "${ADMIN}"\n[database]\npath = "data/islet.db"\n[[apps]]\nid = "a1"\napp_secret = "${KEY}"\n`,
    undefined,
    { env: { ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'false' } },
  );
}, 30_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('1. parsing limits before work, and the server layer', () => {
  test('a deeply nested body on the unauthenticated sign-in is refused before it is parsed', async () => {
    const body = `${'['.repeat(25_000)}${']'.repeat(25_000)}`;
    const res = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await json(res)).toEqual({
      status: 400,
      type: 'application/problem+json',
      body: { title: 'Bad Request', status: 400, detail: 'request body nests deeper than 32 levels' },
    });
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, 1])));
    const res2 = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: wide });
    expect((await res2.json()).detail).toBe('request body has more than 1000 keys');
  });

  test('a chunked body over the limit gets a 413 problem, as a declared one does', async () => {
    const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
    const head = `POST /console/api/session HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunked = await raw([head, chunk, chunk, '0\r\n\r\n'], { gapMs: 10 });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual({ title: 'Payload Too Large', status: 413, detail: 'request body exceeds 64 KiB' });
    const declared = await raw(`POST /console/api/session HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{`);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).detail).toBe('request body exceeds 64 KiB');
  });

  test('invalid UTF-8 and media types other than application/json are refused', async () => {
    const bad = new Uint8Array([...new TextEncoder().encode('{"token":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    const res = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bad });
    expect((await json(res)).body.detail).toBe('request body is not valid UTF-8');
    for (const type of ['application/jsonx', 'text/json', 'application/x-www-form-urlencoded; a=json']) {
      const r = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': type }, body: '{"token":"x"}' });
      expect({ type, status: r.status }).toEqual({ type, status: 415 });
    }
    const withCharset = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'Application/JSON; charset=utf-8' }, body: '{"token":"x"}' });
    expect(withCharset.status).toBe(401);
  });

  test('CONNECT, TRACE and methods no route uses get a 405 problem; methods Bun does not know close the connection', async () => {
    for (const line of ['CONNECT example.com:443 HTTP/1.1', 'TRACE / HTTP/1.1', 'TRACE /console HTTP/1.1']) {
      const answer = await raw(`${line}\r\nHost: ${host()}\r\n\r\n`);
      expect({ line, status: answer.status, type: answer.headers['content-type'] }).toEqual({ line, status: 405, type: 'application/problem+json' });
      expect(JSON.parse(answer.body).detail).toMatch(/^method (CONNECT|TRACE) is not supported by this server$/);
    }
    const unknown = await raw(`FOO / HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    expect({ status: unknown.status, closed: unknown.closed }).toEqual({ status: undefined, closed: true });
  });

  // Bun (uWebSockets) answers these itself, before any handler runs, with an empty body and
  // `Connection: close`; no option changes that (docs/hostile-input.md, "The server layer"). HTTP allows a bare answer here.
  test.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['an unknown HTTP version', 'GET / HTTP/3.0\r\nHost: x\r\n\r\n', 505],
    ['an oversize request line', `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['an oversize header', `GET / HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(100_000)}\r\n\r\n`, 431],
    ['bad chunking', 'POST /console/api/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n', 400],
    ['Content-Length with Transfer-Encoding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
  ])('%s gets a bare answer from Bun and a closed connection', async (_name, text, status) => {
    const answer = await raw(text);
    expect({ status: answer.status, closed: answer.closed, body: answer.body }).toEqual({ status, closed: true, body: '' });
  });

  test('an HTTP/1.0 request without Host gets a 400 problem, and the server stays up', async () => {
    const answer = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect({ status: answer.status, detail: JSON.parse(answer.body).detail }).toEqual({ status: 400, detail: 'a Host header is required' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  test('a Host too short for the router to find the path is refused instead of misrouted', async () => {
    const answer = await raw('GET /ab/api/admin/apps HTTP/1.1\r\nHost: ab\r\n\r\n');
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'the Host header must be at least 4 characters long' },
    });
  });

  test('query numbers are bounded decimal integers, prototype keys are just unknown names, a bad percent-escape is named', async () => {
    for (const offset of ['1000001', '9223372036854775808', '1e3', '1.0']) {
      const res = await fetch(`${server.url}/api/apps/a1/live-activities?offset=${offset}`, { headers: { 'x-service-key': KEY } });
      expect(await json(res)).toMatchObject({ status: 400, body: { detail: 'offset must be an integer from 0 to 1000000' } });
    }
    for (const path of ['/swagger/assets/constructor', '/swagger/assets/__proto__', '/__proto__', '/api/admin/__proto__']) {
      const res = await fetch(`${server.url}${path}`, { headers: admin });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const escape = await raw(`GET /api/apps/a1/live-activities/%zz HTTP/1.1\r\nHost: ${host()}\r\nX-Service-Key: ${KEY}\r\n\r\n`);
    expect({ status: escape.status, body: JSON.parse(escape.body) }).toEqual({
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'the path has a malformed percent-escape (%XX of UTF-8 bytes)' },
    });
    const plan = await fetch(`${server.url}/api/admin/apps/a1`, { method: 'PATCH', headers: admin, body: '{"plan":"constructor"}' });
    expect(plan.status).toBe(400);
  });
});

describe('2. outbound policy', () => {
  test('an endpoint of https://127.0.0.1 is refused without the flag, naming the field', async () => {
    const key = apnsKey();
    const apns = { bundleId: 'com.example.app', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: 'https://127.0.0.1' };
    const res = await fetch(`${server.url}/api/admin/apps/a1/apns`, { method: 'PUT', headers: admin, body: JSON.stringify(apns) });
    expect(await json(res)).toMatchObject({
      status: 400,
      body: { detail: 'endpoint must not be a loopback address; only public addresses are allowed unless [security] allow_private_endpoints = true' },
    });
    for (const endpoint of ['https://[::ffff:127.0.0.1]', 'https://localhost:9443', 'http://api.push.apple.com']) {
      const r = await fetch(`${server.url}/api/admin/apps/a1/apns`, { method: 'PUT', headers: admin, body: JSON.stringify({ ...apns, endpoint }) });
      expect({ endpoint, status: r.status }).toEqual({ endpoint, status: 400 });
    }
  });

  test('with [security] allow_private_endpoints, the same loopback endpoint is accepted', async () => {
    const other = mkdtempSync(join(tmpdir(), 'islet-hostile-open-'));
    const open = await spawnServer(
      other,
      `[server]\nport = 0\nhost = "127.0.0.1"\n[security]\nallow_private_endpoints = true\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "i.db"\n[[apps]]\nid = "a1"\n`,
      undefined,
      { env: { ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'true' } },
    );
    try {
      const key = apnsKey();
      const apns = { bundleId: 'com.example.app', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: 'https://127.0.0.1' };
      const res = await fetch(`${open.url}/api/admin/apps/a1/apns`, { method: 'PUT', headers: admin, body: JSON.stringify(apns) });
      expect(res.status).toBe(200);
    } finally {
      await open.stop();
      rmSync(other, { recursive: true, force: true });
    }
  }, 30_000);

  test('the FCM endpoint and the service account token_uri are checked the same way', async () => {
    const { privateKey } = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign']) as CryptoKeyPair;
    const pem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await crypto.subtle.exportKey('pkcs8', privateKey)).toString('base64')}\n-----END PRIVATE KEY-----\n`;
    const account = { project_id: 'demo-project', client_email: 'x@demo-project.iam.gserviceaccount.com', private_key: pem };
    const put = (body: unknown) => fetch(`${server.url}/api/admin/apps/a1/fcm`, { method: 'PUT', headers: admin, body: JSON.stringify(body) });
    expect((await json(await put({ serviceAccount: account, endpoint: 'http://127.0.0.1:9444' }))).body.detail).toStartWith('endpoint must not be a loopback address');
    // Loopback, not a private or metadata address: a test never names an address it could reach
    // if the check broke (the classifier's tests cover every other range).
    expect((await json(await put({ serviceAccount: { ...account, token_uri: 'https://[::1]/token' } }))).body.detail).toStartWith(
      'serviceAccount.token_uri must not be a loopback address',
    );
  }, 30_000);
});

describe('3. identifiers at the door', () => {
  test('device tokens with #, / or ? (or of the wrong shape) are refused; a hex token is accepted', async () => {
    const hex = 'ab'.repeat(32);
    for (const token of [`${hex}#x`, `../${hex}`, `${hex}?y`, 'VICTIM', 'abc', 'a'.repeat(63), 'ab'.repeat(101)]) {
      const res = await fetch(`${server.url}/api/apps/a1/devices`, {
        method: 'POST',
        headers: { 'x-service-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ endUserId: 'u1', platform: 'ios', token }),
      });
      expect({ token, status: res.status, detail: (await res.json()).detail }).toEqual({
        token,
        status: 400,
        detail: 'token must be an APNs token: an even number (64 to 200) of hex digits',
      });
    }
    const fcm = await fetch(`${server.url}/api/apps/a1/devices`, {
      method: 'POST',
      headers: { 'x-service-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ endUserId: 'u1', platform: 'android', token: 'abc/../x?y' }),
    });
    expect(fcm.status).toBe(400);
    const ok = await fetch(`${server.url}/api/apps/a1/devices`, {
      method: 'POST',
      headers: { 'x-service-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ endUserId: 'u1', platform: 'ios', token: hex, pushToStartToken: 'cd'.repeat(40) }),
    });
    expect(ok.status).toBe(200);
  });

  test('a bundle id with CR/LF is refused', async () => {
    const key = apnsKey();
    const res = await fetch(`${server.url}/api/admin/apps/a1/apns`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ bundleId: 'com.example\r\nx: y', teamId: key.teamId, keyId: key.keyId, key: key.key }),
    });
    expect((await json(res)).body.detail).toStartWith('bundleId must be a reverse-DNS bundle id');
  });
});

describe('4. throttles that hold behind a proxy', () => {
  // The server trusts 127.0.0.1 as a proxy, so X-Forwarded-For names each test's client.
  const as = (ip: string, headers: Record<string, string>) => ({ ...headers, 'x-forwarded-for': ip });

  test('wrong admin Bearer tokens from one address end in 429 with Retry-After; another address is not delayed', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${server.url}/api/admin/apps`, { headers: as('198.51.100.1', { authorization: `Bearer guess-${i}` }) });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    const other = await fetch(`${server.url}/api/admin/apps`, { headers: as('198.51.100.2', { authorization: `Bearer ${ADMIN}` }) });
    expect(other.status).toBe(200);
    // The console sign-in guesses the same secret: the locked address is locked there too, the other is not.
    const signIn = (ip: string) => fetch(`${server.url}/console/api/session`, { method: 'POST', headers: as(ip, { 'content-type': 'application/json' }), body: JSON.stringify({ token: ADMIN }) });
    expect((await signIn('198.51.100.1')).status).toBe(429);
    expect((await signIn('198.51.100.3')).status).toBe(200);
  });

  test('wrong service keys are throttled per address too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await fetch(`${server.url}/api/apps/a1/live-activities`, { headers: as('198.51.100.9', { 'x-service-key': `wrong-${i}` }) })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect((await fetch(`${server.url}/api/apps/a1/live-activities`, { headers: as('198.51.100.10', { 'x-service-key': KEY }) })).status).toBe(200);
  });
});

describe('5. headers', () => {
  test('every answer carries nosniff, no-referrer and (public_url is https) HSTS', async () => {
    for (const path of ['/healthz', '/api/admin/apps', '/nope', '/console', '/swagger', '/swagger/json']) {
      const res = await fetch(`${server.url}${path}`);
      expect({
        path,
        nosniff: res.headers.get('x-content-type-options'),
        referrer: res.headers.get('referrer-policy'),
        hsts: res.headers.get('strict-transport-security'),
      }).toEqual({ path, nosniff: 'nosniff', referrer: 'no-referrer', hsts: 'max-age=31536000' });
    }
  }, 30_000);

  test('the console and Swagger UI send their CSP as a header with frame-ancestors none; Swagger UI persists no token', async () => {
    for (const path of ['/console', '/console/apps/a1', '/swagger']) {
      const csp = (await fetch(`${server.url}${path}`)).headers.get('content-security-policy') ?? '';
      expect({ path, framed: csp.includes("frame-ancestors 'none'"), inline: csp.includes("script-src 'unsafe-inline'") }).toEqual({ path, framed: true, inline: false });
    }
    const page = await (await fetch(`${server.url}/swagger`)).text();
    expect(page).not.toContain('<script>');
    const init = await (await fetch(`${server.url}/swagger/assets/swagger-init.js`)).text();
    expect(init).toContain('persistAuthorization: false');
  });
});

describe('6. files and start-up', () => {
  test('database, WAL, shared memory, instance lock (and its journal) and key files are 0600 in a 0700 folder', () => {
    const mode = (p: string) => (statSync(join(dir, p)).mode & 0o777).toString(8);
    const files = readdirSync(join(dir, 'data')).sort();
    expect(files).toEqual(['islet.db', 'islet.db-shm', 'islet.db-wal', 'islet.db.lock', 'islet.db.lock-journal', 'islet.key']);
    expect({ folder: mode('data'), ...Object.fromEntries(files.map((f) => [f, mode(`data/${f}`)])) }).toEqual({
      folder: '700',
      ...Object.fromEntries(files.map((f) => [f, '600'])),
    });
  });

  test('a second serve on the same port exits non-zero and says the port is taken', async () => {
    const port = new URL(server.url).port;
    const other = mkdtempSync(join(tmpdir(), 'islet-hostile-2-'));
    try {
      await spawnServer(other, `[server]\nport = ${port}\nhost = "127.0.0.1"\n[database]\npath = "i.db"\n`);
      throw new Error('the second server started');
    } catch (e) {
      expect(String(e)).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 30_000);
});
