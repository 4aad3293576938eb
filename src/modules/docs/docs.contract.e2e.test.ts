import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { NOT_TRYABLE_ON_THE_DEMO } from './operation-docs';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('api-contract-e2e', (database) => {
  // The document as a contract, through a real server process: requests generated from it (no,
  // wrong and throttled credentials, an unknown app, unknown ids, bad parameters, bodies of the wrong
  // type, size or shape, a malformed Idempotency-Key, the examples) each get an answer whose status,
  // media type and body the document lists for that operation; and every status it lists is one
  // these requests drew, or one of the few that need a state no request makes (NOT_GENERATED).
  const ADMIN = 'contract-admin-token';
  const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

  /** Documented answers these requests do not draw, with why (by status, or operation and status); each is tested where named. */
  const NOT_GENERATED: Record<string, string> = {
    'GET /metrics 401': 'only with [metrics] token set (metrics.e2e.test.ts)',
    'POST /api/apps/{appId}/notifications/send 404': 'an unknown testReleaseVersion (notifications.routes.test.ts)',
    '403': 'a plan without Live Activities (live-activities.routes.test.ts)',
    '409': 'a state conflict: an ended activity, a release status, a key still in flight (their route tests)',
    '422': 'an Idempotency-Key reused for another request, a release not in Testing (idempotency.test.ts, notifications tests)',
    '502': 'APNs refusing an admin channel call (broadcasts.e2e.test.ts)',
    '503': 'the database not ready or writes failing (disk-full.e2e.test.ts)',
    '507': 'a full disk (disk-full.e2e.test.ts)',
  };

  let dir: string;
  let server: SpawnedServer;
  let doc: any;
  let appSecret = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-contract-'));
    // 127.0.0.1 is a trusted proxy, so X-Forwarded-For gives each kind of request its own client
    // address: the wrong credentials of one do not throttle another.
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\ntrusted_proxies = ["127.0.0.1"]\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n`,
      undefined,
      { env: { ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'false' } },
    );
    doc = await (await fetch(`${server.url}/swagger/json`)).json();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  interface Operation {
    method: string;
    path: string;
    op: any;
    key: string;
  }

  function operations(): Operation[] {
    return Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ method, path, op, key: `${method.toUpperCase()} ${path}` })),
    );
  }

  const isAdmin = (o: Operation) => o.path.startsWith('/api/admin/');
  const isPublic = (o: Operation) => o.path.startsWith('/api/apps/');
  const credentials = (o: Operation): Record<string, string> =>
    isAdmin(o) ? { authorization: `Bearer ${ADMIN}` } : isPublic(o) ? { 'x-service-key': appSecret } : {};
  const wrongCredentials = (o: Operation): Record<string, string> =>
    isAdmin(o) ? { authorization: 'Bearer not-the-token' } : isPublic(o) ? { 'x-service-key': 'sk_not_the_key' } : {};

  /** The operation's path with its documented parameter examples, some replaced. */
  function urlOf(o: Operation, replace: Record<string, string> = {}, query = ''): string {
    const path = o.path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(replace[name] ?? String(o.op.parameters.find((p: any) => p.name === name).example)));
    return `${path}${query}`;
  }

  const firstExample = (o: Operation): unknown => {
    const examples = o.op.requestBody?.content['application/json']?.examples;
    return examples ? Object.values<any>(examples)[0].value : undefined;
  };

  interface Probe {
    what: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
  }

  /** Requests built from the document for one operation; `ip` keeps wrong credentials apart. */
  function probes(o: Operation, ip: () => string): Probe[] {
    const list: Probe[] = [];
    const ok = { ...credentials(o), 'x-forwarded-for': ip() };
    const json = { ...ok, 'content-type': 'application/json' };
    const example = firstExample(o);
    const exampleBody = example === undefined ? undefined : JSON.stringify(example);
    const withBody = (headers: Record<string, string>) => (exampleBody === undefined ? headers : { ...headers, 'content-type': 'application/json' });
    if (isAdmin(o) || isPublic(o)) {
      list.push({ what: 'no credentials', url: urlOf(o), headers: withBody({ 'x-forwarded-for': ip() }), body: exampleBody });
      list.push({ what: 'wrong credentials', url: urlOf(o), headers: withBody({ ...wrongCredentials(o), 'x-forwarded-for': ip() }), body: exampleBody });
    }
    if ((o.op.security ?? []).some((s: Record<string, unknown>) => 'endUserSignature' in s))
      list.push({ what: 'a wrong end user signature', url: urlOf(o), headers: withBody({ 'x-end-user-signature': '00'.repeat(32), 'x-forwarded-for': ip() }), body: exampleBody });
    if (o.path.includes('{appId}')) list.push({ what: 'an unknown app', url: urlOf(o, { appId: 'no-such-app' }), headers: withBody(ok), body: exampleBody });
    for (const p of o.op.parameters ?? []) {
      if (p.in === 'path' && p.name !== 'appId') {
        // Per method: a PUT of a stream makes the key it names.
        const unknown = p.schema?.type === 'integer' ? '999999' : `no-such-${o.method}`;
        list.push({ what: `unknown ${p.name}`, url: urlOf(o, { [p.name]: unknown }), headers: withBody(ok), body: exampleBody });
        list.push({ what: `${p.name} not of its type`, url: urlOf(o, { [p.name]: p.schema?.type === 'integer' ? '1e3' : 'x'.repeat(300) }), headers: withBody(ok), body: exampleBody });
      }
      if (p.in === 'query') {
        const bad = p.schema?.type === 'integer' ? '1.0' : p.schema?.type === 'boolean' || p.schema?.enum || p.schema?.anyOf ? 'not-a-value' : 'x'.repeat(300);
        list.push({ what: `query ${p.name}=${bad.slice(0, 12)}`, url: urlOf(o, {}, `?${p.name}=${bad}`), headers: ok });
      }
    }
    if (['post', 'put', 'patch', 'delete'].includes(o.method)) {
      list.push({ what: 'a text/plain body', url: urlOf(o), headers: { ...ok, 'content-type': 'text/plain' }, body: 'hello' });
      list.push({ what: 'a body over the limit', url: urlOf(o), headers: json, body: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }) });
    }
    if (o.op.requestBody) {
      list.push({ what: 'malformed JSON', url: urlOf(o), headers: json, body: '{"a":' });
      list.push({ what: 'a JSON array body', url: urlOf(o), headers: json, body: '[1]' });
      list.push({ what: 'an empty object body', url: urlOf(o), headers: json, body: '{}' });
    }
    if (o.op.parameters?.some((p: any) => p.name === 'Idempotency-Key')) {
      list.push({ what: 'a malformed Idempotency-Key', url: urlOf(o), headers: withBody({ ...ok, 'idempotency-key': 'k'.repeat(300) }), body: exampleBody });
    }
    return list;
  }

  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

  /** What is wrong with an answer for the document, or undefined. */
  function mismatch(o: Operation, res: Response, text: string): string | undefined {
    const documented = o.op.responses[String(res.status)];
    if (!documented) return `status ${res.status} is not documented (${text.slice(0, 120)})`;
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const content = documented.content ?? {};
    if (Object.keys(content).length === 0) return text === '' ? undefined : `status ${res.status} documents no body, got ${type}`;
    if (!content[type]) return `status ${res.status} answers ${type}, documented ${Object.keys(content).join(', ')}`;
    if (!type.endsWith('json') || !content[type].schema) return undefined;
    const valid = ajv.validate(content[type].schema, JSON.parse(text));
    return valid ? undefined : `status ${res.status} body does not fit its schema: ${ajv.errorsText(ajv.errors)}`;
  }

  describe('the OpenAPI document is what the served process answers', () => {
    test('generated bad and good requests to every operation get documented statuses, media types and bodies; every documented status is drawn', async () => {
      const failures: string[] = [];
      const seen = new Map<string, Set<string>>();
      /** The error bodies drawn, by operation and status. */
      const drawn = new Map<string, Record<string, unknown>[]>();
      let n = 0;
      const ip = () => `10.77.${(++n >> 8) & 255}.${n & 255}`;
      const send = async (o: Operation, probe: Probe) => {
        const res = await fetch(`${server.url}${probe.url}`, { method: o.method.toUpperCase(), headers: probe.headers, body: probe.body });
        const text = await res.text();
        const problem = mismatch(o, res, text);
        if (problem) failures.push(`${o.key} with ${probe.what}: ${problem}`);
        if (!seen.has(o.key)) seen.set(o.key, new Set());
        seen.get(o.key)!.add(String(res.status));
        if (res.status >= 400 && !problem) drawn.set(`${o.key} ${res.status}`, [...(drawn.get(`${o.key} ${res.status}`) ?? []), JSON.parse(text)]);
        return { status: res.status, text };
      };
      const all = operations();
      expect(all.length).toBeGreaterThan(50);
      const find = (key: string) => all.find((o) => o.key === key)!;
      const good = (o: Operation) => {
        const example = NOT_TRYABLE_ON_THE_DEMO[o.key] ? undefined : firstExample(o);
        const headers = { ...credentials(o), 'x-forwarded-for': ip(), ...(example === undefined ? {} : { 'content-type': 'application/json' }) };
        return send(o, { what: 'its example', url: urlOf(o), headers, body: example === undefined ? undefined : JSON.stringify(example) });
      };
      /** A demo app as `islet demo` makes it, made again after each deletion: each example finds what it names. */
      const freshDemo = async () => {
        await fetch(`${server.url}/api/admin/apps/demo`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
        const made = await good(find('POST /api/admin/demo'));
        expect(made.status).toBe(201);
        appSecret = JSON.parse(made.text).appSecret;
      };
      await freshDemo();

      // The example of each: reads, then writes, then deletions, each on a fresh demo.
      const order = (o: Operation) => (o.method === 'get' ? 0 : o.method !== 'delete' ? 1 : 2);
      for (const o of [...all].sort((a, b) => order(a) - order(b))) {
        if (o.method === 'delete') await freshDemo();
        await good(o);
        // A rotated App Secret: the next public calls use the new one.
        if (o.path.includes('/secrets/')) {
          const secrets = await fetch(`${server.url}/api/admin/apps/demo/secrets`, { headers: { authorization: `Bearer ${ADMIN}` } });
          if (secrets.status === 200) appSecret = ((await secrets.json()) as any).appSecret;
        }
      }

      await freshDemo();
      for (const o of all) for (const probe of probes(o, ip)) await send(o, probe);

      // Throttled: after wrong credentials from one address, every API operation answers 429.
      for (let i = 0; i < 11; i++) {
        await fetch(`${server.url}/api/admin/apps`, { headers: { authorization: 'Bearer guess', 'x-forwarded-for': '127.99.0.1' } });
        await fetch(`${server.url}/api/apps/demo/live-activities`, { headers: { 'x-service-key': 'guess', 'x-forwarded-for': '127.99.0.2' } });
      }
      for (const o of all.filter((x) => (isAdmin(x) || isPublic(x)) && x.op.security?.length !== 0)) {
        const { status } = await send(o, { what: 'a throttled address', url: urlOf(o), headers: { ...credentials(o), 'x-forwarded-for': isAdmin(o) ? '127.99.0.1' : '127.99.0.2' } });
        if (status !== 429) failures.push(`${o.key} from a throttled address answered ${status}, not 429`);
      }

      for (const o of all) {
        for (const status of Object.keys(o.op.responses)) {
          // The operations Swagger UI cannot try on the demo (a webhook receiver is needed) are not tried here either.
          const untried = NOT_TRYABLE_ON_THE_DEMO[o.key] && Number(status) < 400;
          if (!seen.get(o.key)?.has(status) && !NOT_GENERATED[status] && !NOT_GENERATED[`${o.key} ${status}`] && !untried)
            failures.push(`${o.key} documents ${status}, which no generated request drew (${[...(seen.get(o.key) ?? [])].join(', ')})`);
        }
      }
      // The documented examples are what was drawn: a drawn detail comes with the members its example
      // shows, and the answers every operation of its kind gets (credentials, body limit and type) were all drawn.
      const members = (body: Record<string, unknown>) => Object.keys(body).sort().join(',');
      for (const o of all) {
        for (const [status, response] of Object.entries<any>(o.op.responses)) {
          const bodies = drawn.get(`${o.key} ${status}`);
          if (!bodies) continue;
          for (const { summary, value } of Object.values<any>(response.content?.['application/problem+json']?.examples ?? {})) {
            const same = bodies.filter((b) => b.detail === value.detail);
            if (same.length === 0 && ['401', '413', '415'].includes(status)) failures.push(`${o.key} ${status} "${summary}" was not drawn: ${value.detail}`);
            if (same.length > 0 && !same.some((b) => members(b) === members(value)))
              failures.push(`${o.key} ${status} "${summary}" shows ${members(value)}, drawn ${members(same[0]!)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    }, 120_000);
  });
});
