import { APP_FIELDS, SECTIONS, type Config, type FieldSpec } from './config.schema';

const HIDDEN = '[redacted]';

/** The configuration with every secret replaced, safe for logs and the console. */
export function redactConfig(config: Config): unknown {
  const hideValue = (field: FieldSpec | undefined, v: unknown) => {
    if (!field || !('secret' in field) || !field.secret || v === undefined) return v;
    return field.secret === 'url-password' ? redactUrlPassword(String(v)) : HIDDEN;
  };
  const hide = (spec: Record<string, FieldSpec>, table: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(table).map(([k, v]) => [k, hideValue(spec[k], v)]));
  const out: Record<string, unknown> = { source: config.source, plans: config.plans };
  for (const [name, spec] of Object.entries(SECTIONS)) {
    out[name] = hide(spec as Record<string, FieldSpec>, config[name as keyof typeof SECTIONS] as Record<string, unknown>);
  }
  out.apps = config.apps.map((app) => hide(APP_FIELDS as Record<string, FieldSpec>, app as unknown as Record<string, unknown>));
  return out;
}

/**
 * A connection URL with its password (user info or `password=` parameter) replaced: the rest
 * (user, host, port, database, sslmode) is what an operator needs to see. A URL that does not
 * parse is hidden whole, since where its password is cannot be told.
 */
export function redactUrlPassword(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return HIDDEN;
  }
  const mark = 'islet0redacted0password';
  if (u.password) u.password = mark;
  if (u.searchParams.has('password')) u.searchParams.set('password', mark);
  return u.toString().replaceAll(mark, HIDDEN);
}

/**
 * The passwords a connection URL carries, in the user info or a `password=` parameter, each as
 * written (percent-encoded) and decoded: a driver may echo either form.
 */
function urlPasswords(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const query = u.searchParams.getAll('password');
  // searchParams decodes; the raw form is read from the query string itself.
  const rawQuery = [...u.search.matchAll(/[?&]password=([^&]*)/g)].map((m) => m[1]!);
  return [u.password, decode(u.password), ...query, ...rawQuery].filter((p) => p.length > 0);
}

/**
 * `message` with every password of `url` replaced, and the URL itself shown redacted: for the
 * messages of a database driver, which may quote the URL or its password. Longest first, so a
 * password containing another is replaced whole.
 * @example redactUrlPasswordIn('connect postgres://u:p%40ss@db/x failed', 'postgres://u:p%40ss@db/x') // 'connect postgres://u:[redacted]@db/x failed'
 */
export function redactUrlPasswordIn(message: string, url: string): string {
  const passwords = [...new Set(urlPasswords(url))].sort((a, b) => b.length - a.length);
  return passwords.reduce((text, password) => text.replaceAll(password, HIDDEN), message.replaceAll(url, redactUrlPassword(url)));
}
