import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join, relative } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { serveApp, type ServedApp } from '../../test-support/served-app';

// The error answers of the served document, as Swagger UI shows them: each documented 4xx/5xx
// answer has its own examples, of its own status, whose details the server's code does produce.
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const SRC = join(import.meta.dir, '..', '..');

let served: ServedApp;
let doc: any;
beforeAll(async () => {
  served = await serveApp({ app: 'shop', secret: 'sk_error_examples' });
  doc = await (await fetch(`${served.server.url}/swagger/json`)).json();
}, 30_000);
afterAll(() => served?.close(), 30_000);

interface ErrorAnswer {
  where: string;
  status: string;
  media: any;
}

function errorAnswers(): ErrorAnswer[] {
  return Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops)
      .filter(([method]) => METHODS.includes(method))
      .flatMap(([method, op]) =>
        Object.entries<any>(op.responses)
          .filter(([status]) => Number(status) >= 400)
          .map(([status, response]) => ({ where: `${method.toUpperCase()} ${path} ${status}`, status, media: response.content?.['application/problem+json'] })),
      ),
  );
}

/** The body of a string literal or template of the server's code (comments left out), as a pattern: `${…}` stands for any text. */
function producedTexts(): RegExp[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(SRC, path);
      if (entry.isDirectory()) {
        // The examples themselves, the test stand-ins and the generated client do not count.
        if (!['modules/docs', 'test-support', 'client'].includes(rel)) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(SRC);
  const patterns: RegExp[] = [];
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const file of files) {
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const [, , text] of code.matchAll(/(['"])((?:\\.|(?!\1)[^\\\n])*)\1/g)) patterns.push(new RegExp(`^${escape(text!.replace(/\\(.)/g, '$1'))}$`));
    for (const [, text] of code.matchAll(/`((?:\\.|[^`\\])*)`/g)) {
      const parts = text!.split(/\$\{(?:[^{}]|\{[^{}]*\})*\}/);
      // A template of mostly placeholders (`${a}: ${b}`) would match anything.
      if (parts.join('').trim().length >= 8) patterns.push(new RegExp(`^${parts.map((p) => escape(p.replace(/\\(.)/g, '$1'))).join('.+')}$`));
    }
  }
  return patterns;
}

describe('the error answers of the served OpenAPI document', () => {
  test('each has its own examples: the status of the answer, its reason phrase, a detail that is a sentence, members the schema declares', () => {
    const answers = errorAnswers();
    expect(answers.length).toBeGreaterThan(300);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const failures: string[] = [];
    for (const { where, status, media } of answers) {
      const examples = Object.values<any>(media?.examples ?? {});
      if (examples.length === 0) failures.push(`${where}: no example`);
      const details = new Set<string>();
      for (const { summary, value } of examples) {
        const what = `${where} "${summary}"`;
        if (value.status !== Number(status)) failures.push(`${what}: status ${value.status}`);
        if (value.title !== STATUS_CODES[Number(status)]) failures.push(`${what}: title ${value.title}`);
        if (typeof value.detail !== 'string' || value.detail.length < 8 || value.detail === 'string') failures.push(`${what}: detail ${value.detail}`);
        if (typeof summary !== 'string' || summary === '') failures.push(`${what}: no summary`);
        for (const member of Object.keys(value)) if (!media.schema.properties[member]) failures.push(`${what}: ${member} is not declared`);
        if (!ajv.validate(media.schema, value)) failures.push(`${what}: ${ajv.errorsText(ajv.errors)}`);
        const body = JSON.stringify(value);
        if (details.has(body)) failures.push(`${what}: given twice`);
        details.add(body);
      }
    }
    expect(failures).toEqual([]);
  });

  test("each detail is one the server's code produces (a string literal, or a template's text around its values)", () => {
    const patterns = producedTexts();
    expect(patterns.length).toBeGreaterThan(500);
    const unknown = new Set<string>();
    for (const { where, media } of errorAnswers())
      for (const { value } of Object.values<any>(media?.examples ?? {})) if (!patterns.some((p) => p.test(value.detail))) unknown.add(`${where}: ${value.detail}`);
    expect([...unknown]).toEqual([]);
  });

  test('the spec texts come with their extension members: the start names the slug and the eight valid ones, the send the slug, the public API the app id', () => {
    const values = (path: string, method: string, status: string) =>
      Object.values<any>(doc.paths[path][method].responses[status].content['application/problem+json'].examples).map((e) => e.value);
    for (const path of ['/api/apps/{appId}/live-activities', '/api/apps/{appId}/broadcasts'])
      expect(values(path, 'post', '400')[0]).toEqual({
        title: 'Bad Request',
        status: 400,
        detail: 'invalid template slug',
        templateSlug: 'progres-bar',
        validSlugs: ['status-tracker', 'metric-live', 'countdown', 'progress-bar', 'two-column', 'key-value-list', 'image-banner', 'mini-table'],
      });
    expect(values('/api/apps/{appId}/notifications/send', 'post', '404')[0]).toEqual({
      title: 'Not Found',
      status: 404,
      detail: 'notification template not found',
      slug: 'order-shiped',
      releaseVersion: 1,
    });
    const start401 = values('/api/apps/{appId}/live-activities', 'post', '401');
    expect(start401.map((v) => v.detail)).toEqual(['X-Service-Key header is required', 'invalid service key', 'invalid service key']);
    expect(start401[2]).toMatchObject({ appId: 'shp', keyAppId: 'shop' });
    // The start's other answers are no longer the 400 of a missing field.
    for (const status of ['401', '403', '409', '413', '415', '422', '429', '507'])
      for (const value of values('/api/apps/{appId}/live-activities', 'post', status)) expect({ status, detail: value.detail }).not.toEqual({ status, detail: 'contentState.progress is required' });
  });
});

describe('Swagger UI icons', () => {
  test('the page links its icons; they are served from the binary, next to the page and with its files', async () => {
    const page = await (await fetch(`${served.server.url}/swagger`)).text();
    expect(page).toContain('href="/swagger/assets/favicon-32x32.png"');
    const shipped = readFileSync(join(SRC, '..', 'node_modules', 'swagger-ui-dist', 'favicon-32x32.png'));
    for (const path of ['/swagger/favicon-32x32.png', '/swagger/assets/favicon-32x32.png', '/swagger/favicon-16x16.png', '/swagger/assets/favicon-16x16.png']) {
      const res = await fetch(`${served.server.url}${path}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect({ path, status: res.status, type: res.headers.get('content-type'), png: Buffer.from(bytes.subarray(1, 4)).toString() }).toEqual({ path, status: 200, type: 'image/png', png: 'PNG' });
      if (path.endsWith('32x32.png')) expect(Buffer.from(bytes).equals(shipped)).toBe(true);
    }
    expect((await fetch(`${served.server.url}/swagger/favicon.svg`)).status).toBe(404);
  });
});
