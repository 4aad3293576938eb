import { APP_FIELDS, SECTIONS, type Config, type FieldSpec } from './config.schema';

const HIDDEN = '[redacted]';

/** The configuration with every secret replaced, safe for logs and the console. */
export function redactConfig(config: Config): unknown {
  const hide = (spec: Record<string, FieldSpec>, table: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(table).map(([k, v]) => [k, spec[k] && 'secret' in spec[k] && spec[k].secret && v !== undefined ? HIDDEN : v]),
    );
  const out: Record<string, unknown> = { source: config.source, plans: config.plans };
  for (const [name, spec] of Object.entries(SECTIONS)) {
    out[name] = hide(spec as Record<string, FieldSpec>, config[name as keyof typeof SECTIONS] as Record<string, unknown>);
  }
  out.apps = config.apps.map((app) => hide(APP_FIELDS as Record<string, FieldSpec>, app as unknown as Record<string, unknown>));
  return out;
}
