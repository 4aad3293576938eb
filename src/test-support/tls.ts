import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let cached: { cert: string; key: string } | undefined;

/**
 * A self-signed certificate for `localhost` and 127.0.0.1, made once per process with openssl.
 * The certificate is its own CA: clients pass it as `ca`.
 */
export function testCertificate(): { cert: string; key: string } {
  cached ??= newTestCertificate('localhost');
  return cached;
}

/** A new self-signed certificate for `localhost` and 127.0.0.1 with the given common name. */
export function newTestCertificate(commonName: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'islet-tls-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`,
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
