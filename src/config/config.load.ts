import { existsSync, readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { parseCidr } from '../lib/trusted-proxies';
import { locateKey, type KeyPath } from './config.locate';
import { databaseUrlProblem } from './database-url';
import {
  APNS_FIELDS,
  APP_FIELDS,
  DEFAULT_PLANS,
  FCM_FIELDS,
  WEB_PUSH_FIELDS,
  LIVE_ACTIVITY_BUDGET_FIELDS,
  LIVE_ACTIVITY_TEMPLATE_FIELDS,
  PLAN_FIELDS,
  SECTIONS,
  TEMPLATE_FIELD_TYPES,
  type AppConfig,
  type Config,
  type FieldSpec,
  type LiveActivityTemplateConfig,
  type SectionSpec,
  type TemplateFieldConfig,
} from './config.schema';

/** A configuration that cannot be used; its message lists every problem, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
const APP_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Which file to read: `--config FILE`, else `ISLET_CONFIG`, else `./islet.toml` when present,
 * else none (built-in defaults).
 */
export function resolveConfigPath(flag: string | undefined, env: Record<string, string | undefined>, cwd = process.cwd()): string | undefined {
  if (flag) return flag;
  if (env.ISLET_CONFIG) return env.ISLET_CONFIG;
  const local = `${cwd}/islet.toml`;
  return existsSync(local) ? local : undefined;
}

/** Reads, validates and resolves the configuration. Throws ConfigError naming `file:line:column`. */
export function loadConfig(path: string | undefined, env: Record<string, string | undefined> = process.env): Config {
  let text = '';
  if (path !== undefined) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ConfigError([`${path}: cannot read the configuration file (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
    }
  }
  return parseConfig(text, path ?? 'built-in defaults', env);
}

export function parseConfig(text: string, source: string, env: Record<string, string | undefined> = {}): Config {
  let raw: Table;
  try {
    raw = parse(text) as Table;
  } catch (e) {
    if (e instanceof TomlError) throw new ConfigError([tomlProblem(text, source, e)]);
    throw e;
  }
  const problems: string[] = [];
  const at = (path: KeyPath) => {
    const pos = locateKey(text, path);
    return pos ? `${source}:${pos.line}:${pos.column}` : source;
  };
  const keyName = (path: KeyPath) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
  const report = (path: KeyPath, message: string) => problems.push(`${at(path)}: ${keyName(path)} ${message}`);

  const readSection = (table: unknown, spec: SectionSpec, path: KeyPath, nested: string[] = []): Table => {
    const out: Table = {};
    if (table === undefined) table = {};
    if (!isTable(table)) {
      report(path, 'must be a table');
      return out;
    }
    for (const key of Object.keys(table)) {
      if (!Object.hasOwn(spec, key) && !nested.includes(key)) report([...path, key], `is not a known key`);
    }
    for (const [key, field] of Object.entries(spec)) {
      const value = table[key];
      if (value === undefined) {
        if ('default' in field) out[key] = Array.isArray(field.default) ? [...field.default] : field.default;
        continue;
      }
      const problem = checkValue(field, value);
      if (problem) report([...path, key], problem);
      else out[key] = value;
    }
    return out;
  };

  /** `[apps.live_activity_templates.<part>]`: each field a table of type, required and list. */
  const readFields = (table: unknown, path: KeyPath): Record<string, TemplateFieldConfig> => {
    const fields: Record<string, TemplateFieldConfig> = {};
    if (table === undefined) return fields;
    if (!isTable(table)) return (report(path, 'must be a table of fields'), fields);
    for (const [name, field] of Object.entries(table)) {
      if (!isTable(field)) {
        report([...path, name], 'must be a table such as { type = "string", required = true }');
        continue;
      }
      for (const key of Object.keys(field)) if (!['type', 'required', 'list'].includes(key)) report([...path, name, key], 'is not a known key');
      if (!TEMPLATE_FIELD_TYPES.includes(field.type as TemplateFieldConfig['type'])) report([...path, name, 'type'], `must be one of ${TEMPLATE_FIELD_TYPES.join(', ')}`);
      for (const flag of ['required', 'list'] as const) if (field[flag] !== undefined && typeof field[flag] !== 'boolean') report([...path, name, flag], 'must be true or false');
      fields[name] = { type: field.type as TemplateFieldConfig['type'], ...(field.required === true ? { required: true } : {}), ...(field.list === true ? { list: true } : {}) };
    }
    return fields;
  };

  const readTemplates = (value: unknown, path: KeyPath): LiveActivityTemplateConfig[] => {
    if (!Array.isArray(value)) return (report(path, 'must be an array of tables ([[apps.live_activity_templates]])'), []);
    return value.map((entry, j) => {
      const at = [...path, j];
      const head = readSection(entry, LIVE_ACTIVITY_TEMPLATE_FIELDS, at, ['attributes', 'content_state']) as { slug?: string; attributes_type?: string };
      if (head.slug === undefined) report(at, 'needs slug');
      if (head.attributes_type === undefined) report(at, 'needs attributes_type');
      const table = isTable(entry) ? entry : {};
      return {
        slug: head.slug ?? '',
        attributesType: head.attributes_type ?? '',
        attributes: readFields(table.attributes, [...at, 'attributes']),
        contentState: readFields(table.content_state, [...at, 'content_state']),
      };
    });
  };

  const known = [...Object.keys(SECTIONS), 'plans', 'apps'];
  for (const key of Object.keys(raw)) if (!known.includes(key)) report([key], 'is not a known section');

  const config: Table = { source };
  for (const [name, spec] of Object.entries(SECTIONS)) {
    const section = readSection(raw[name], spec as SectionSpec, [name]);
    for (const [key, field] of Object.entries(spec as SectionSpec)) {
      const envName = `ISLET_${name}_${key}`.toUpperCase();
      const envValue = env[envName];
      if (envValue === undefined) continue;
      const parsed = fromEnv(field, envValue);
      if (parsed.ok) section[key] = parsed.value;
      else problems.push(`environment ${envName}: ${parsed.problem}`);
    }
    config[name] = section;
  }

  // No prototype: a plan named "constructor" or "__proto__" is just an unknown plan.
  const plans: Config['plans'] = Object.assign(Object.create(null) as Config['plans'], DEFAULT_PLANS);
  if (raw.plans !== undefined) {
    if (!isTable(raw.plans)) report(['plans'], 'must be a table of plans');
    else
      for (const [name, plan] of Object.entries(raw.plans)) {
        plans[name] = readSection(plan, PLAN_FIELDS, ['plans', name]) as Config['plans'][string];
      }
  }
  config.plans = plans;

  const apps: AppConfig[] = [];
  if (raw.apps !== undefined) {
    if (!Array.isArray(raw.apps)) report(['apps'], 'must be an array of tables ([[apps]])');
    else
      raw.apps.forEach((entry, i) => {
        const app = readSection(entry, APP_FIELDS, ['apps', i], ['apns', 'fcm', 'web_push', 'live_activity_budget', 'live_activity_templates']) as AppConfig;
        if (app.id === undefined) report(['apps', i], 'needs an id');
        else if (!APP_ID.test(app.id)) report(['apps', i, 'id'], 'must be 1-64 letters, digits, - or _');
        else if (apps.some((a) => a.id === app.id)) report(['apps', i, 'id'], `repeats the app id "${app.id}"`);
        if (app.plan !== undefined && !Object.hasOwn(plans, app.plan)) report(['apps', i, 'plan'], `names an unknown plan "${app.plan}"`);
        if (isTable(entry) && entry.apns !== undefined) {
          app.apns = readSection(entry.apns, APNS_FIELDS, ['apps', i, 'apns']) as AppConfig['apns'];
          for (const k of ['bundle_id', 'team_id', 'key_id', 'key_file'] as const)
            if (app.apns?.[k] === undefined) report(['apps', i, 'apns'], `needs ${k}`);
        }
        if (isTable(entry) && entry.fcm !== undefined) {
          app.fcm = readSection(entry.fcm, FCM_FIELDS, ['apps', i, 'fcm']) as AppConfig['fcm'];
          if (app.fcm?.service_account_file === undefined) report(['apps', i, 'fcm'], 'needs service_account_file');
        }
        if (isTable(entry) && entry.web_push !== undefined) {
          app.web_push = readSection(entry.web_push, WEB_PUSH_FIELDS, ['apps', i, 'web_push']) as AppConfig['web_push'];
          for (const k of ['subject', 'default_url'] as const) if (app.web_push?.[k] === undefined) report(['apps', i, 'web_push'], `needs ${k}`);
        }
        if (isTable(entry) && entry.live_activity_budget !== undefined)
          app.live_activity_budget = readSection(entry.live_activity_budget, LIVE_ACTIVITY_BUDGET_FIELDS, ['apps', i, 'live_activity_budget']) as AppConfig['live_activity_budget'];
        if (isTable(entry) && entry.live_activity_templates !== undefined) app.liveActivityTemplates = readTemplates(entry.live_activity_templates, ['apps', i, 'live_activity_templates']);
        apps.push(app);
      });
  }
  config.apps = apps;

  const server = config.server as Config['server'];
  server.public_url ??= `http://localhost:${server.port}`;
  for (const entry of server.trusted_proxies ?? []) {
    if (!parseCidr(entry)) report(['server', 'trusted_proxies'], `has "${entry}", which is not an address or CIDR range`);
  }
  const url = (config.database as Config['database']).url;
  const urlProblem = url === undefined ? undefined : databaseUrlProblem(url);
  if (urlProblem) report(['database', 'url'], urlProblem);
  if (problems.length > 0) throw new ConfigError(problems);
  return config as unknown as Config;
}

/**
 * smol-toml's message, except for a string left open: it reports the line break that ends it as
 * "control characters are not allowed in strings" (and a multi-line one as "unfinished string"),
 * where the reader needs to hear which string is not closed and where it starts.
 */
function tomlProblem(text: string, source: string, e: TomlError): string {
  const message = e.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
  const line = text.split('\n')[e.line - 1] ?? '';
  if (/control characters are not allowed/.test(message) && /^\r?$/.test(line.slice(e.column - 1))) {
    const open = openString(line);
    if (open) return `${source}:${e.line}:${open.column}: the string started here is not closed: line ${e.line} ends before its closing ${open.quote} (a string that spans lines needs ${open.quote.repeat(3)})`;
  }
  if (/unfinished string/.test(message)) return `${source}:${e.line}:${e.column}: the string started here is not closed before the end of the file`;
  return `${source}:${e.line}:${e.column}: ${message}`;
}

/** The quote and 1-based column of the string still open at the end of a TOML line, if one is. */
function openString(line: string): { quote: string; column: number } | undefined {
  let open: { quote: string; column: number } | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (open) {
      if (c === '\\' && open.quote === '"') i++;
      else if (c === open.quote) open = undefined;
    } else if (c === '#') return undefined;
    else if (c === '"' || c === "'") open = { quote: c, column: i + 1 };
  }
  return open;
}

function checkValue(field: FieldSpec, value: unknown): string | undefined {
  switch (field.kind) {
    case 'string':
      if (typeof value !== 'string') return `must be a string, not ${describe(value)}`;
      if (field.oneOf && !field.oneOf.includes(value)) return `must be one of ${field.oneOf.join(', ')}`;
      return undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `must be an integer, not ${describe(value)}`;
      if (field.min !== undefined && value < field.min) return `must be at least ${field.min}`;
      if (field.max !== undefined && value > field.max) return `must be at most ${field.max}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, not ${describe(value)}`;
    case 'list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : `must be an array of strings, not ${describe(value)}`;
  }
}

function fromEnv(field: FieldSpec, raw: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown = raw;
  if (field.kind === 'integer') value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (field.kind === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  if (field.kind === 'list') value = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const problem = checkValue(field, value);
  return problem ? { ok: false, problem } : { ok: true, value };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  if (typeof value === 'string') return `the string "${value}"`;
  return `${typeof value} ${String(value)}`;
}
