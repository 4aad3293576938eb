import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/config.load';
import { SECTIONS } from '../../src/config/config.schema';
import { brokenLinks } from '../docs/markdown-links';

// The deployment recipes of deploy/ checked offline: no container engine with Compose runs here,
// so the compose file is read as Compose reads it (YAML with merge keys, ${VAR} interpolation),
// the Caddyfile as Caddy reads it (`caddy adapt`), the unit as systemd does (`systemd-analyze verify`).
const ROOT = join(import.meta.dir, '..', '..');
const DEPLOY = join(ROOT, 'deploy');
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'islet-deploy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Service = {
  image: string;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
};
const compose = Bun.YAML.parse(read('compose/compose.yaml')) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const islets = services.filter(([, s]) => s.image.startsWith('islet:'));

/** Every environment variable Islet reads from its configuration's fixed sections. */
const ISLET_VARIABLES = new Set(Object.entries(SECTIONS).flatMap(([section, keys]) => Object.keys(keys).map((key) => `ISLET_${section}_${key}`.toUpperCase())));

/** KEY=VALUE lines (an env file, `.env.example`); comments and blank lines skipped. */
function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Compose's interpolation of `${VAR}`, `${VAR:-default}` and `${VAR:?error}`; an unset required variable throws. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const set = vars[name];
    if (set) return set;
    if (op === '?') throw new Error(`${name}: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

/** `.env.example` with its blanks filled as an operator would. */
function filledEnv(): Record<string, string> {
  const example = envFile(read('compose/.env.example'));
  const filled: Record<string, string> = { POSTGRES_PASSWORD: 'pw', ISLET_MASTER_KEY: randomBytes(32).toString('base64'), ISLET_ADMIN_TOKEN: 'adm', ISLET_METRICS_TOKEN: 'met' };
  for (const [k, v] of Object.entries(filled)) if (example[k] === '') example[k] = v;
  return example;
}

describe('deploy/compose', () => {
  test('runs three Islet instances of the project image, each reading the same database, master key and admin token', () => {
    expect(islets.map(([name]) => name)).toEqual(['islet-1', 'islet-2', 'islet-3']);
    const env = filledEnv();
    const resolved = islets.map(([, s]) => Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), env)])));
    for (const name of ['ISLET_DATABASE_URL', 'ISLET_SECURITY_MASTER_KEY', 'ISLET_ADMIN_TOKEN'])
      expect({ name, values: new Set(resolved.map((e) => e[name])).size, set: resolved.every((e) => e[name]) }).toEqual({ name, values: 1, set: true });
    expect(resolved[0]!.ISLET_DATABASE_URL).toBe('postgres://islet:pw@postgres:5432/islet?sslmode=disable');
    // Every variable is one Islet reads, and together they make a configuration Islet accepts.
    const proxyAddress = (compose.services.proxy!.networks as Record<string, { ipv4_address: string }>).islet!.ipv4_address;
    for (const e of resolved) {
      expect(Object.keys(e).filter((k) => !ISLET_VARIABLES.has(k))).toEqual([]);
      const config = parseConfig('', 'compose.yaml', e);
      expect(config.database.url).toBe(e.ISLET_DATABASE_URL!);
      expect(config.server.trusted_proxies).toEqual([proxyAddress]);
    }
  });

  test('starts the instances once PostgreSQL is healthy, and each has a health check Compose runs', () => {
    const postgres = compose.services.postgres!;
    expect(postgres.image).toBe('postgres:17');
    expect(postgres.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
    for (const [name, s] of islets) {
      expect({ name, depends: s.depends_on }).toEqual({ name, depends: { postgres: { condition: 'service_healthy' } } });
      expect({ name, check: s.healthcheck?.test }).toEqual({ name, check: ['CMD', '/usr/local/bin/islet', 'healthcheck'] });
    }
  });

  test('.env.example names every variable the compose file requires', () => {
    const required = [...read('compose/compose.yaml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!);
    const example = envFile(read('compose/.env.example'));
    expect(required.length).toBeGreaterThan(3);
    expect([...new Set(required)].filter((name) => !(name in example))).toEqual([]);
  });

  test('Caddy balances round robin over all three, checks /readyz, streams events unbuffered and keeps /metrics off', () => {
    const proxy = compose.services.proxy!;
    expect(proxy.image).toBe('caddy:2');
    expect(proxy.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
    // What Caddy itself makes of the file (its JSON configuration), with the site address unset.
    const { ISLET_SITE_ADDRESS: _, ...env } = process.env;
    const adapted = Bun.spawnSync(['caddy', 'adapt', '--config', join(DEPLOY, 'compose/Caddyfile')], { stdout: 'pipe', stderr: 'pipe', env });
    expect({ code: adapted.exitCode, err: adapted.stderr.toString().includes('"level":"warn"') }).toEqual({ code: 0, err: false });
    const server = JSON.parse(adapted.stdout.toString()).apps.http.servers.srv0;
    expect(server.listen).toEqual([':80']);
    const handlers = server.routes.flatMap((r: { handle: unknown[] }) => r.handle) as Record<string, any>[];
    expect(handlers.find((h) => h.handler === 'static_response')).toMatchObject({ status_code: 404 });
    expect(server.routes[0].match).toEqual([{ path: ['/metrics'] }]);
    const proxyHandler = handlers.find((h) => h.handler === 'reverse_proxy')!;
    expect(proxyHandler.upstreams.map((u: { dial: string }) => u.dial)).toEqual(islets.map(([name]) => `${name}:8080`));
    expect(proxyHandler.load_balancing.selection_policy.policy).toBe('round_robin');
    expect(proxyHandler.health_checks.active).toMatchObject({ uri: '/readyz', expect_status: 200 });
    expect(proxyHandler.flush_interval).toBe(-1);
  });
});

describe('deploy/systemd', () => {
  test('systemd reads the unit without a warning', () => {
    // verify also checks that ExecStart's program exists: this machine has no /usr/local/bin/islet.
    const unit = read('systemd/islet.service');
    expect(unit).toContain('ExecStart=/usr/local/bin/islet serve --config /etc/islet/islet.toml');
    writeFileSync(join(tmp, 'islet.service'), unit.replace('/usr/local/bin/islet', '/bin/true'));
    const verify = Bun.spawnSync(['systemd-analyze', 'verify', join(tmp, 'islet.service')], { stdout: 'pipe', stderr: 'pipe' });
    expect({ code: verify.exitCode, out: verify.stdout.toString() + verify.stderr.toString() }).toEqual({ code: 0, out: '' });
    for (const line of ['EnvironmentFile=/etc/islet/islet.env', 'KillSignal=SIGTERM', 'NoNewPrivileges=true', 'ProtectSystem=strict', 'User=islet'])
      expect(unit.split('\n')).toContain(line);
  });

  test('the environment file and islet.toml make a configuration Islet accepts, with the database and master key from the file', () => {
    const env = envFile(read('systemd/islet.env'));
    expect(Object.keys(env).filter((k) => !ISLET_VARIABLES.has(k))).toEqual([]);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['ISLET_DATABASE_URL', 'ISLET_SECURITY_MASTER_KEY', 'ISLET_ADMIN_TOKEN']));
    const filled = { ...env, ISLET_SECURITY_MASTER_KEY: randomBytes(32).toString('base64'), ISLET_ADMIN_TOKEN: 'adm', ISLET_METRICS_TOKEN: 'met' };
    const config = parseConfig(read('systemd/islet.toml'), 'islet.toml', filled);
    expect(config.database.url).toStartWith('postgres://islet:');
    expect(config.server.public_url).toBe('https://push.example.com');
    expect(config.server.trusted_proxies.length).toBe(1);
  });
});

describe('deploy/ READMEs', () => {
  test('every relative link leads to a file and a heading that exist', () => {
    const files = ['README.md', 'compose/README.md', 'systemd/README.md'].map((f) => join(DEPLOY, f));
    expect(brokenLinks(files, ROOT).map((p) => `${p.file}:${p.line} ${p.target}: ${p.problem}`)).toEqual([]);
  });
});
