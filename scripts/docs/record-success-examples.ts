/**
 * Records the success answer of every operation, as "Try it out" gets it on a demo instance (the
 * operation's first body example, its documented parameter values), into
 * src/modules/docs/success-examples.json: the examples the document shows under each 2xx answer
 * (polish-document.ts). Real answers, not made up: run `npm run docs:examples` after changing an
 * answer; docs.success-examples.e2e.test.ts fails while a recorded example no longer fits its schema.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN, createHarness } from '../../src/test-support/harness';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const OUT = join(import.meta.dir, '..', '..', 'src', 'modules', 'docs', 'success-examples.json');
/** Long lists are cut to this many items: an example shows the shape, not a page. */
const MAX_ITEMS = 2;

const shorten = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map(shorten);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
};

const first = await createHarness();
const doc = (await first.request('GET', '/swagger/json')).body;
first.close();
const recorded: Record<string, unknown> = {};
for (const [path, ops] of Object.entries<any>(doc.paths)) {
  for (const [method, op] of Object.entries<any>(ops)) {
    if (!METHODS.includes(method)) continue;
    const key = `${method.toUpperCase()} ${path}`;
    const success = Object.entries<any>(op.responses).find(([s]) => Number(s) < 300);
    if (!success?.[1].content?.['application/json']) continue;
    const h = await createHarness();
    try {
      const appSecret = path === '/api/admin/demo' ? '' : (await h.admin('POST', '/api/admin/demo')).body.appSecret;
      const url = path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(op.parameters.find((p: any) => p.name === name).example)));
      const headers: Record<string, string> = path.startsWith('/api/apps/') ? { 'x-service-key': appSecret } : { authorization: `Bearer ${ADMIN_TOKEN}` };
      const examples = op.requestBody?.content?.['application/json']?.examples;
      const body = examples ? (Object.values<any>(examples)[0]?.value as unknown) : undefined;
      const res = await h.request(method.toUpperCase(), url, { headers, ...(body === undefined ? {} : { body }) });
      if (String(res.status) === success[0]) recorded[key] = shorten(res.body);
      else console.error(`${key}: ${res.status} ${JSON.stringify(res.body)} (not recorded)`);
    } finally {
      h.close();
    }
  }
}
writeFileSync(OUT, `${JSON.stringify(recorded, null, 2)}\n`);
console.error(`recorded ${Object.keys(recorded).length} success answers into ${OUT}`);
