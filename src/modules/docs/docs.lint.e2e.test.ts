import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

const BIN = join(import.meta.dir, '..', '..', '..', 'node_modules', '.bin');

let dir: string;
let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter of node_modules/.bin on the document; its exit code and everything it printed. */
async function lint(tool: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn([join(BIN, tool), ...args], { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off' } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: `${stdout}${stderr}` };
}

/** Every schema object of the document (parameters, bodies, responses). */
function schemasOf(doc: any): { where: string; schema: unknown }[] {
  const found: { where: string; schema: unknown }[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) found.push({ where: `${where} parameter ${p.name}`, schema: p.schema });
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) found.push({ where: `${where} body ${type}`, schema: media.schema });
      for (const [status, response] of Object.entries<any>(op.responses ?? {}))
        for (const [type, media] of Object.entries<any>(response.content ?? {})) found.push({ where: `${where} ${status} ${type}`, schema: media.schema });
    }
  }
  return found;
}

describe('the served OpenAPI document passes the tools people feed it to', () => {
  test('Redocly (recommended rules) and Spectral (spectral:oas) report no error, and Ajv compiles every schema in strict mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-doclint-'));
    server = await spawnServer(dir, `[server]\nport = 0\nhost = "127.0.0.1"\n[database]\npath = "${join(dir, 'i.db')}"\n`);
    const res = await fetch(`${server.url}/swagger/json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');

    const redocly = await lint('redocly', ['lint', 'openapi.json', '--format=stylish'], dir);
    expect({ code: redocly.code, errors: redocly.output.split('\n').filter((l) => /\berror\b/.test(l)) }).toEqual({ code: 0, errors: [] });
    expect(redocly.output).toContain('Your API description is valid');
    const spectral = await lint('spectral', ['lint', 'openapi.json', '--fail-severity=error'], dir);
    expect({ code: spectral.code, errors: spectral.output.split('\n').filter((l) => /\berror\b/.test(l)) }).toEqual({ code: 0, errors: [] });

    // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` is OpenAPI's own keyword.
    const ajv = addFormats(new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true }));
    ajv.addKeyword('example');
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(200);
    const failures: string[] = [];
    for (const { where, schema } of schemas) {
      try {
        ajv.compile(schema as object);
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
