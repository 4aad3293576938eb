import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from './config.load';
import { redactConfig } from './config.redact';

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
});
