/** The TLS modes of libpq's `sslmode`, which Bun's client also reads from the URL. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/**
 * What is wrong with a `[database] url`, or undefined. Never repeats the URL: it holds a password.
 * @example databaseUrlProblem('mysql://db/islet') // 'must start with postgres:// or postgresql://'
 */
export function databaseUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL: write it as postgres://USER:PASSWORD@HOST:5432/DATABASE';
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return 'must start with postgres:// or postgresql://';
  if (!u.hostname && !u.searchParams.has('host')) return 'names no host: write it as postgres://USER:PASSWORD@HOST:5432/DATABASE';
  const mode = u.searchParams.get('sslmode');
  if (mode !== null && !(SSL_MODES as readonly string[]).includes(mode)) return `has sslmode=${mode}; use one of ${SSL_MODES.join(', ')}`;
  return undefined;
}
