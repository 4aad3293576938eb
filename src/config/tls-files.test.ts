import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTestCertificate } from '../test-support/tls';
import { ConfigError, parseConfig } from './config.load';
import { readTlsFiles } from './tls-files';

const dir = mkdtempSync(join(tmpdir(), 'islet-tls-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const first = newTestCertificate('first');
const second = newTestCertificate('second');
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const server = (cert: string, key: string) => parseConfig(`[server]\ntls_cert = "${cert}"\ntls_key = "${key}"\n`, 'f.toml').server;
const problem = (cert: string, key: string) => {
  try {
    readTlsFiles(server(cert, key));
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.join('\n');
    throw e;
  }
  return 'accepted';
};

describe('[server] tls_cert and tls_key', () => {
  test('a chain and its key are read; none configured is plain HTTP', () => {
    const cert = file('chain.pem', first.cert + second.cert);
    expect(readTlsFiles(server(cert, file('key.pem', first.key)))).toEqual({ cert: first.cert + second.cert, key: first.key });
    expect(readTlsFiles(parseConfig('', 'f.toml').server)).toBeUndefined();
  });

  test('each refusal names the key and the file', () => {
    const cert = file('first.pem', first.cert);
    expect(problem(cert, file('other-key.pem', second.key))).toBe(`server.tls_key: ${join(dir, 'other-key.pem')} is not the private key of the first certificate in ${cert}`);
    expect(problem(cert, cert)).toBe(`server.tls_key: ${cert} holds no unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`);
    expect(problem(file('key-as-cert.pem', first.key), file('key.pem', first.key))).toBe(
      `server.tls_cert: ${join(dir, 'key-as-cert.pem')} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
    expect(problem(cert, join(dir, 'missing.pem'))).toBe(`server.tls_key: cannot read ${join(dir, 'missing.pem')} (ENOENT)`);
  });
});
