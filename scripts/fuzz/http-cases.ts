import fc, { type Arbitrary } from 'fast-check';
import { fromSchema, HOSTILE_STRINGS } from './schema-arbitrary';

export interface FuzzTarget {
  adminToken: string;
  appId: string;
  serviceKey: string;
}

export interface HttpCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What the case is, for the report of a 5xx. */
  label: string;
}

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Operations that would make the rest of the run meaningless: deleting the app or rotating its key. */
const spares = (method: string, path: string, params: Record<string, string>, target: FuzzTarget) =>
  params.appId === target.appId && ((method === 'delete' && path === '/api/admin/apps/{appId}') || path.includes('/secrets/'));

/** Bodies a hostile client sends whatever the schema says. */
const hostileBody: Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constant(`${'['.repeat(20_000)}${']'.repeat(20_000)}`),
  fc.constant(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`),
  fc.constant(JSON.stringify(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i])))),
  fc.constant('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
  fc.constant('{"a":"\\ud800"}'),
  fc.constant(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])),
  fc.constant('{"a":1e999999}'),
  fc.constant('"just a string"'),
  fc.constant('null'),
  fc.constant(''),
  fc.constant('{'),
  fc.constant(`{"x":"${'y'.repeat(70_000)}"}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const pathValue = (name: string, target: FuzzTarget): Arbitrary<string> => {
  const hostile = fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 200));
  const known = name === 'appId' ? fc.constant(target.appId) : name === 'kind' ? fc.constantFrom('app-secret', 'signing-secret') : name === 'version' ? fc.constantFrom('1', '2', '0', '-1', '99999999999999999999') : fc.string({ minLength: 1, maxLength: 30 });
  return fc.oneof({ weight: 6, arbitrary: known }, { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) }, { weight: 2, arbitrary: hostile });
};

const queryValue = (schema: Json | undefined): Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: fromSchema(schema).map((v) => String(v)) },
    { weight: 2, arbitrary: fc.constantFrom('-1', '0', '1000000', '1000001', '9223372036854775808', '1e400', 'NaN', '1.5', '0x10', '', '__proto__') },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );

/** One arbitrary per documented operation: path and query parameters, auth headers and a body. */
export function operationCases(doc: Json, target: FuzzTarget): Arbitrary<HttpCase> {
  const operations: Arbitrary<HttpCase>[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters: Json[] = op.parameters ?? [];
      const pathParams = parameters.filter((p) => p.in === 'path');
      const queryParams = parameters.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const isAdmin = path.startsWith('/api/admin');
      const isPublic = path.startsWith('/api/apps');
      operations.push(
        fc
          .record({
            params: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(p.name, target)]))),
            query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p.schema)])), { requiredKeys: [] }),
            auth: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'wrong', 'none'),
            // Each wrong-auth case comes from its own address (behind the trusted proxy), so
            // throttling one never locks out the valid cases, and the throttle sees address churn.
            address: fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([a, b, c]) => `127.${b}.${c}.${a}`),
            body: bodySchema ? fc.oneof({ weight: 6, arbitrary: fromSchema(bodySchema).map((v) => JSON.stringify(v) ?? '') }, { weight: 2, arbitrary: hostileBody }) : fc.constant(undefined),
            contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/jsonx', undefined),
          })
          .filter(({ params }) => !spares(method, path, params as Record<string, string>, target))
          .map(({ params, query, auth, address, body, contentType }) => {
            const values = params as Record<string, string>;
            const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent((values[name] ?? 'x').toWellFormed()));
            const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined) as [string, string][]).toString();
            const headers: Record<string, string> = { 'x-forwarded-for': auth === 'valid' ? '127.0.0.9' : address };
            if (auth !== 'none' && isAdmin) headers.authorization = `Bearer ${auth === 'valid' ? target.adminToken : 'wrong-token'}`;
            if (auth !== 'none' && isPublic) headers['x-service-key'] = auth === 'valid' ? target.serviceKey : 'wrong-key';
            if (body !== undefined && contentType) headers['content-type'] = contentType;
            return { method: method.toUpperCase(), path: search ? `${url}?${search}` : url, headers, body, label: `${method.toUpperCase()} ${path}` };
          }),
      );
    }
  }
  return fc.oneof(...operations);
}

/** Requests outside the document: unknown paths, prototype names, the console and the docs. */
export const strayCases: Arbitrary<HttpCase> = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    path: fc.oneof(
      fc.constantFrom('/__proto__', '/constructor', '/swagger/assets/constructor', '/swagger/assets/__proto__', '/console/__proto__', '/console/api/session', '/swagger', '/swagger/json', '/console', '/', '/api', '/api/apps', '/api/admin/__proto__/x', '//', '/%00', '/%ff', '/a/../../b'),
      fc.webPath(),
    ),
    body: fc.option(hostileBody, { nil: undefined }),
  })
  .map(({ method, path, body }): HttpCase => ({
    method,
    path,
    headers: body !== undefined ? { 'content-type': 'application/json', 'x-forwarded-for': '198.19.0.1' } : { 'x-forwarded-for': '198.19.0.1' },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    label: `${method} ${path.slice(0, 60)}`,
  }));
