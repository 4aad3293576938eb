import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from './config.load';
import { redactConfig, redactUrlPasswordIn } from './config.redact';

const problemsOf = (text: string, env: Record<string, string> = {}) => {
  try {
    parseConfig(text, 'islet.toml', env);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('[database] url, pool_size, ca_file', () => {
  test('absent by default (the SQLite file serves), pool of 10; ISLET_DATABASE_URL sets the url', () => {
    const defaults = parseConfig('', 'f');
    expect({ url: defaults.database.url, pool: defaults.database.pool_size, ca: defaults.database.ca_file }).toEqual({ url: undefined, pool: 10, ca: undefined });
    const fromEnv = parseConfig('[database]\npool_size = 4\nca_file = "ca.pem"\n', 'f', { ISLET_DATABASE_URL: 'postgresql://u:p@db:5432/islet?sslmode=verify-full' });
    expect({ url: fromEnv.database.url, pool: fromEnv.database.pool_size, ca: fromEnv.database.ca_file }).toEqual({
      url: 'postgresql://u:p@db:5432/islet?sslmode=verify-full',
      pool: 4,
      ca: 'ca.pem',
    });
  });

  test('a url that is not PostgreSQL, not a URL, or has an unknown sslmode is refused at its position, without repeating the password', () => {
    expect(problemsOf('[database]\nurl = "mysql://u:hunter2@db/islet"\n')).toEqual(['islet.toml:2:1: database.url must start with postgres:// or postgresql://']);
    expect(problemsOf('[database]\nurl = "db.example.com:hunter2"\n')).toEqual(['islet.toml:2:1: database.url must start with postgres:// or postgresql://']);
    expect(problemsOf('[database]\nurl = "postgres://u:hunter2@[db/islet"\n')).toEqual([
      'islet.toml:2:1: database.url is not a URL: write it as postgres://USER:PASSWORD@HOST:5432/DATABASE',
    ]);
    expect(problemsOf('', { ISLET_DATABASE_URL: 'postgres://u:hunter2@db/islet?sslmode=always' })).toEqual([
      'islet.toml: database.url has sslmode=always; use one of disable, allow, prefer, require, verify-ca, verify-full',
    ]);
    expect(problemsOf('[database]\npool_size = 0\n')).toEqual(['islet.toml:2:1: database.pool_size must be at least 1']);
  });

  test('the redacted view keeps user, host, port, database and sslmode, and hides the password wherever the URL puts it', () => {
    const view = (url: string) => (redactConfig(parseConfig('', 'f', { ISLET_DATABASE_URL: url })) as { database: { url: string } }).database.url;
    expect(view('postgres://islet:hunter2@db.example.com:5432/islet?sslmode=require')).toBe('postgres://islet:[redacted]@db.example.com:5432/islet?sslmode=require');
    expect(view('postgres://islet@db.example.com/islet?password=hunter2&sslmode=verify-full')).toBe(
      'postgres://islet@db.example.com/islet?password=[redacted]&sslmode=verify-full',
    );
    expect(view('postgres://islet:p%40ss@db/islet')).toBe('postgres://islet:[redacted]@db/islet');
    expect(view('postgres://db/islet')).toBe('postgres://db/islet');
  });

  test('a driver message shows neither form of the password: user info (as written and percent-decoded) and the password= parameter', () => {
    const encoded = 'postgres://islet:p%40ss%2Fw0rd@db/islet';
    expect(redactUrlPasswordIn(`could not connect to ${encoded}`, encoded)).toBe('could not connect to postgres://islet:[redacted]@db/islet');
    expect(redactUrlPasswordIn('password "p@ss/w0rd" refused; raw p%40ss%2Fw0rd', encoded)).toBe('password "[redacted]" refused; raw [redacted]');
    const query = 'postgres://islet@db:5432/islet?sslmode=require&password=s3cr%3Dt';
    expect(redactUrlPasswordIn(`could not connect to ${query}`, query)).toBe('could not connect to postgres://islet@db:5432/islet?sslmode=require&password=[redacted]');
    expect(redactUrlPasswordIn('auth failed for s3cr=t (s3cr%3Dt)', query)).toBe('auth failed for [redacted] ([redacted])');
    expect(redactUrlPasswordIn('connection refused', 'postgres://islet@db/islet')).toBe('connection refused');
  });
});

describe('[cluster] lease_seconds', () => {
  test('10 by default, ISLET_CLUSTER_LEASE_SECONDS sets it, and a lease under 2 or over 300 seconds is refused at its position', () => {
    expect(parseConfig('', 'f').cluster.lease_seconds).toBe(10);
    expect(parseConfig('', 'f', { ISLET_CLUSTER_LEASE_SECONDS: '4' }).cluster.lease_seconds).toBe(4);
    expect(problemsOf('[cluster]\nlease_seconds = 1\n')).toEqual(['islet.toml:2:1: cluster.lease_seconds must be at least 2']);
    expect(problemsOf('[cluster]\nlease_seconds = 301\n')).toEqual(['islet.toml:2:1: cluster.lease_seconds must be at most 300']);
  });
});
