import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../test-support/harness';
import { STATUS_CODES } from 'node:http';
import { problem } from '../lib/errors';
import { silentLogger } from '../lib/logger';
import { errorResponse } from './error-response';
import { createApp } from '../app';

let h: Harness;
afterEach(() => h?.close());

describe('error shape', () => {
  test('an unknown route is a 404 problem', async () => {
    h = await createHarness();
    const res = await h.request('GET', '/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toEqual({ title: 'Not Found', status: 404, detail: 'no route for GET /nope' });
  });

  test('a known path with the wrong method is a 405 with Allow', async () => {
    h = await createHarness();
    const res = await h.request('PUT', '/api/apps/a1/devices');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.title).toBe('Method Not Allowed');
  });

  test('a body over 64 KiB is a 413 before it is read', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    const big = JSON.stringify({ endUserId: 'u', platform: 'ios', token: 'x'.repeat(70 * 1024) });
    const res = await h.request('POST', '/api/apps/a1/devices', { raw: big, headers: { 'x-service-key': app.appSecret, 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ title: 'Payload Too Large', status: 413, detail: 'request body exceeds 64 KiB' });
  });

  test('a body that is not JSON is a 415 that says what to send', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    const res = await h.request('POST', '/api/apps/a1/devices', { raw: 'endUserId=u', headers: { 'x-service-key': app.appSecret, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ title: 'Unsupported Media Type', status: 415, detail: 'Content-Type must be application/json' });
  });

  test('malformed JSON is a 400 that says so', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    const res = await h.request('POST', '/api/apps/a1/devices', { raw: '{"endUserId": ', headers: { 'x-service-key': app.appSecret, 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ title: 'Bad Request', status: 400, detail: 'request body is not valid JSON' });
  });

  test('an unexpected error is a generic 500 that leaks nothing, and is logged with the request id', () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, error: (msg: string, f?: Record<string, unknown>) => lines.push(JSON.stringify({ msg, ...f })) };
    const res = errorResponse('UNKNOWN', new Error('SQLITE_BUSY at /secret/path'), new Request('http://x/a'), 'req_1', () => [], logger);
    expect(res.status).toBe(500);
    return res.json().then((body) => {
      expect(body).toEqual({ title: 'Internal Server Error', status: 500, detail: 'internal error; see the server log for request req_1' });
      expect(lines[0]).toContain('SQLITE_BUSY');
    });
  });

  test('request logs carry id, method, path, status and duration, and never a secret', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    await h.request('POST', '/api/apps/a1/devices', { body: { endUserId: 'u', platform: 'android', token: 't' }, headers: { 'x-service-key': app.appSecret, 'x-request-id': 'trace-42' } });
    await h.request('POST', '/api/apps/a1/devices', { body: {}, headers: { 'x-service-key': 'wrong' } });
    await Bun.sleep(5); // request lines are written after the response is sent
    const lines = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(lines.find((l) => l.requestId === 'trace-42')).toMatchObject({ method: 'POST', path: '/api/apps/a1/devices', status: 200 });
    expect(lines.at(-1)).toMatchObject({ status: 401 });
    expect(typeof lines.at(-1).durationMs).toBe('number');
    const all = h.logs.join('\n');
    expect(all).not.toContain(app.appSecret);
    expect(all).not.toContain(app.signingSecret);
    expect(all).not.toContain('test-admin-token');
  });

  test('health and readiness answer without authentication', async () => {
    h = await createHarness();
    expect((await h.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await h.request('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  test('a write refused for lack of space turns /readyz 503 at once, even though a small write would fit (the probe waits a second)', async () => {
    h = await createHarness();
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    h.ctx.db.storage.failed(full);
    const ready = await h.request('GET', '/readyz');
    expect([ready.status, ready.body.title, ready.body.detail]).toEqual([503, 'Service Unavailable', expect.stringMatching(/^disk is full/)]);
  });

  test('problem titles are the platform’s reason phrases, for every status', () => {
    for (const status of [400, 401, 404, 413, 415, 422, 429, 500, 503, 507]) expect(problem(status, 'x').title).toBe(STATUS_CODES[status]!);
    expect(problem(507, 'disk is full').title).toBe('Insufficient Storage');
  });

  test('the per-app rate limit answers 429 with Retry-After, and refills with time', async () => {
    h = await createHarness();
    const app = await h.createApp({ id: 'a1' });
    h.ctx.config.server.rate_limit_per_second = 2;
    const limited = createApp(h.ctx);
    const call = () =>
      limited.handle(
        new Request('http://islet.test/api/apps/a1/devices', {
          method: 'POST',
          headers: { 'x-service-key': app.appSecret, 'content-type': 'application/json' },
          body: JSON.stringify({ endUserId: 'u', platform: 'android', token: 't' }),
        }),
      );
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await call();
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ title: 'Too Many Requests', status: 429, detail: 'rate limit exceeded' });
    h.clock.advance(1000);
    expect((await call()).status).toBe(200);
  });
});

describe('query validation', () => {
  test('limit and offset out of bounds name the parameter', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    for (const [query, detail] of [
      ['limit=0', 'limit must be an integer from 1 to 100'],
      ['limit=abc', 'limit must be an integer from 1 to 100'],
      ['offset=-1', 'offset must be an integer from 0 to 1000000'],
      ['offset=1000001', 'offset must be an integer from 0 to 1000000'],
      ['offset=9223372036854775808', 'offset must be an integer from 0 to 1000000'],
      // Decimal digits only: no exponent, fraction, hex or sign of zero.
      ['limit=1e1', 'limit must be an integer from 1 to 100'],
      ['limit=10.0', 'limit must be an integer from 1 to 100'],
      ['limit=0x10', 'limit must be an integer from 1 to 100'],
      ['limit=', 'limit must be an integer from 1 to 100'],
      ['offset=-0', 'offset must be an integer from 0 to 1000000'],
    ]) {
      const res = await h.admin('GET', `/api/admin/apps/a1/devices?${query}`);
      expect({ query, status: res.status, detail: res.body.detail }).toEqual({ query, status: 400, detail });
    }
    expect((await h.admin('GET', '/api/admin/apps/a1/devices?limit=10&offset=0')).status).toBe(200);
  });

  test('integers in paths are decimal digits too', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    for (const id of ['1e3', '1.0', '0x1', '0', '-1']) {
      const res = await h.admin('GET', `/api/admin/apps/a1/deliveries/${id}`);
      expect({ id, status: res.status, detail: res.body.detail }).toEqual({ id, status: 400, detail: 'id must be a delivery id (a positive integer)' });
    }
    expect((await h.admin('GET', '/api/admin/apps/a1/deliveries/1000')).status).toBe(404);
  });

  test('a malformed percent-escape in a path is a 400 saying so, not a missing parameter', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    for (const path of ['/api/admin/apps/a1/live-activities/%zz', '/api/admin/apps/a1/live-activities/la_%E0%A4%A', '/api/admin/apps/%ff']) {
      const res = await h.admin('GET', path);
      expect({ path, status: res.status, type: res.headers.get('content-type'), body: res.body }).toEqual({
        path,
        status: 400,
        type: 'application/problem+json',
        body: { title: 'Bad Request', status: 400, detail: 'the path has a malformed percent-escape (%XX of UTF-8 bytes)' },
      });
    }
    // A well-formed escape still reaches the route.
    expect((await h.admin('GET', '/api/admin/apps/a1/live-activities/la_%41')).body.detail).toBe('live activity not found');
  });
});
