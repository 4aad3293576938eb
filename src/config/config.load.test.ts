import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseConfig, resolveConfigPath } from './config.load';
import { redactConfig } from './config.redact';
import { APNS_FIELDS, APP_FIELDS, FCM_FIELDS, LIVE_ACTIVITY_TEMPLATE_FIELDS, PLAN_FIELDS, SECTIONS, WEB_PUSH_FIELDS } from './config.schema';

const problemsOf = (text: string, env: Record<string, string> = {}): string[] => {
  try {
    parseConfig(text, 'islet.toml', env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration', () => {
  test('built-in defaults serve on 8080 with the database in data/islet.db', () => {
    const config = parseConfig('', 'built-in defaults');
    expect(config.server.port).toBe(8080);
    expect(config.server.host).toBe('0.0.0.0');
    expect(config.server.public_url).toBe('http://localhost:8080');
    expect(config.database.path).toBe('data/islet.db');
    expect(config.scheduler.tick_seconds).toBe(5);
    expect(config.plans.free?.live_activities).toBe(false);
    expect(config.plans.pro?.minutes).toBe(10000);
    expect(config.admin.token).toBeUndefined();
  });

  test('values from the file are used and plans merge with the defaults', () => {
    const config = parseConfig('[server]\nport = 9000\n[plans.gold]\nlive_activities = true\n[[apps]]\nid = "a1"\nplan = "gold"\n', 'f.toml');
    expect(config.server.port).toBe(9000);
    expect(config.server.public_url).toBe('http://localhost:9000');
    expect(Object.keys(config.plans).sort()).toEqual(['free', 'gold', 'pro']);
    expect(config.plans.gold).toEqual({ live_activities: true, minutes: undefined, overage: false, broadcasts: undefined });
    expect(config.apps[0]).toMatchObject({ id: 'a1', plan: 'gold' });
  });

  test('a string left open names the line and column where it starts, not "control characters"', () => {
    expect(problemsOf('[server]\npublic_url = "https://push.example.com\nport = 9000\n')).toEqual([
      'islet.toml:2:14: the string started here is not closed: line 2 ends before its closing " (a string that spans lines needs """)',
    ]);
    expect(problemsOf("[server]\ntrusted_proxies = ['10.0.0.1', '10.0.0.2]\n")).toEqual([
      "islet.toml:2:32: the string started here is not closed: line 2 ends before its closing ' (a string that spans lines needs ''')",
    ]);
    expect(problemsOf('[admin]\ntoken = """abc\n')).toEqual(['islet.toml:2:9: the string started here is not closed before the end of the file']);
    // A real control character keeps the parser's own words.
    expect(problemsOf('[admin]\ntoken = "a\u0001b"\n')).toEqual(['islet.toml:2:11: control characters are not allowed in strings']);
  });

  test('an unknown key is refused with file:line:column and its path', () => {
    expect(problemsOf('[server]\nport = 8080\n  prot = 1\n')).toEqual(['islet.toml:3:3: server.prot is not a known key']);
  });

  test('a wrong type is refused with the position of the key', () => {
    expect(problemsOf('# comment\n[scheduler]\ntick_seconds = "5"\n')).toEqual([
      'islet.toml:3:1: scheduler.tick_seconds must be an integer, not the string "5"',
    ]);
  });

  test('errors inside the second [[apps]] point at that app', () => {
    const text = '[[apps]]\nid = "a"\n\n[[apps]]\nid = "b"\n[apps.apns]\nbundle_id = 5\n';
    expect(problemsOf(text)).toContain('islet.toml:7:1: apps[1].apns.bundle_id must be a string, not number 5');
  });

  test('a TOML syntax error carries its line and column', () => {
    const [problem] = problemsOf('[server]\nport = \n');
    expect(problem).toMatch(/^islet\.toml:2:\d+: /);
  });

  test('every problem is reported at once', () => {
    expect(problemsOf('[server]\nport = -1\n[bogus]\n[[apps]]\nid = "x"\nplan = "nope"\n')).toEqual([
      'islet.toml:3:1: bogus is not a known section',
      'islet.toml:2:1: server.port must be at least 0',
      'islet.toml:6:1: apps[0].plan names an unknown plan "nope"',
    ]);
  });

  test('environment variables override keys and are checked like them', () => {
    const config = parseConfig('[server]\nport = 1\n', 'f.toml', { ISLET_SERVER_PORT: '9090', ISLET_ADMIN_TOKEN: 'tok', ISLET_DATABASE_PATH: '/tmp/x.db' });
    expect(config.server.port).toBe(9090);
    expect(config.admin.token).toBe('tok');
    expect(config.database.path).toBe('/tmp/x.db');
    expect(problemsOf('', { ISLET_SERVER_PORT: 'eighty' })).toEqual(['environment ISLET_SERVER_PORT: must be an integer, not the string "eighty"']);
  });

  test('the config file is --config, else ISLET_CONFIG, else ./islet.toml when present', () => {
    expect(resolveConfigPath('a.toml', { ISLET_CONFIG: 'b.toml' })).toBe('a.toml');
    expect(resolveConfigPath(undefined, { ISLET_CONFIG: 'b.toml' })).toBe('b.toml');
    expect(resolveConfigPath(undefined, {}, '/nonexistent-dir')).toBeUndefined();
  });

  test('the redacted view hides every secret', () => {
    const config = parseConfig('[admin]\ntoken = "t0p"\n[security]\nmaster_key = "k3y"\n[[apps]]\nid = "a"\napp_secret = "s3cr3t"\nsigning_secret = "s1gn"\n', 'f');
    const text = JSON.stringify(redactConfig(config));
    for (const secret of ['t0p', 'k3y', 's3cr3t', 's1gn']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  test('[[apps.live_activity_templates]]: each field a table of type, required and list; problems name the key', () => {
    const text =
      '[[apps]]\nid = "a"\n[[apps.live_activity_templates]]\nslug = "ride"\n' +
      '[apps.live_activity_templates.content_state]\neta = { type = "float" }\nstops = { type = "string", list = "yes", max = 3 }\n';
    expect(problemsOf(text)).toEqual([
      'islet.toml:4:1: apps[0].live_activity_templates[0] needs attributes_type',
      // Keys inside an inline table point at their table.
      'islet.toml:5:1: apps[0].live_activity_templates[0].content_state.eta.type must be one of string, integer, number, boolean, date',
      'islet.toml:5:1: apps[0].live_activity_templates[0].content_state.stops.max is not a known key',
      'islet.toml:5:1: apps[0].live_activity_templates[0].content_state.stops.list must be true or false',
    ]);
  });

  test('the shipped example parses and names every key of the schema', () => {
    const path = join(import.meta.dir, '..', '..', 'islet.example.toml');
    const text = readFileSync(path, 'utf8');
    const config = parseConfig(text, path);
    expect(config.apps[0]?.id).toBe('my-app');
    // What needs the user's own files or server is commented out (main.test.ts: check-config passes it)…
    expect([config.server.tls_cert, config.database.url, config.apps[0]?.apns, config.apps[0]?.fcm]).toEqual([undefined, undefined, undefined, undefined]);
    // …and valid once uncommented.
    const uncommented = parseConfig(text.replace(/^# (\[\[?apps\.[\w.]+\]\]?|\w+ = )/gm, '$1'), path);
    expect(uncommented.server.tls_cert).toBe('/etc/islet/tls/fullchain.pem');
    expect(uncommented.database.ca_file).toBe('/etc/islet/db-ca.pem');
    expect(uncommented.apps[0]?.apns).toMatchObject({ bundle_id: 'com.example.demo', key_file: 'keys/AuthKey_ABC123DEFG.p8', ca_file: 'keys/test-ca.pem' });
    expect(uncommented.apps[0]?.fcm?.service_account_file).toBe('keys/firebase.json');
    expect(uncommented.plans.pro?.broadcasts).toBe(10);
    expect(uncommented.apps[0]?.liveActivityTemplates).toEqual([
      {
        slug: 'ride',
        attributesType: 'RideAttributes',
        attributes: { driver: { type: 'string', required: true } },
        contentState: { etaMinutes: { type: 'integer', required: true }, pickupAt: { type: 'date' }, stops: { type: 'string', list: true } },
      },
    ]);
    const keys = [
      ...Object.entries(SECTIONS).flatMap(([s, spec]) => Object.keys(spec).map((k) => [s, k])),
      ...Object.keys(PLAN_FIELDS).map((k) => ['plans', k]),
      ...Object.keys(APP_FIELDS).map((k) => ['apps', k]),
      ...Object.keys(APNS_FIELDS).map((k) => ['apps.apns', k]),
      ...Object.keys(FCM_FIELDS).map((k) => ['apps.fcm', k]),
      ...Object.keys(WEB_PUSH_FIELDS).map((k) => ['apps.web_push', k]),
      ...Object.keys(LIVE_ACTIVITY_TEMPLATE_FIELDS).map((k) => ['apps.live_activity_templates', k]),
    ];
    // A key whose mere presence changes what Islet does (database.url) or that names a file of the user's is shown commented out.
    for (const [, key] of keys) expect(text).toMatch(new RegExp(`^(# )?${key} = `, 'm'));
  });
});
