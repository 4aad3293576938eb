import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config.load';
import type { Config } from './config.schema';

/**
 * The certificate chain and key of `[server] tls_cert` / `tls_key`, read and checked now (at start,
 * by `check-config`, at each SIGHUP); undefined without TLS. Bun would refuse bad files only once it
 * listens, with OpenSSL's words (`PEM routines:OPENSSL_internal:NO_START_LINE`): here each problem
 * names the key and the file. Throws ConfigError.
 */
export function readTlsFiles(server: Config['server']): { cert: string; key: string } | undefined {
  if (!server.tls_cert && !server.tls_key) return undefined;
  if (!server.tls_cert || !server.tls_key) throw new ConfigError(['server.tls_cert and server.tls_key must be set together']);
  const cert = read('tls_cert', server.tls_cert);
  const key = read('tls_key', server.tls_key);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError([`server.tls_cert: ${server.tls_cert} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`]);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError([`server.tls_key: ${server.tls_key} holds no unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`]);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new ConfigError([`server.tls_key: ${server.tls_key} is not the private key of the first certificate in ${server.tls_cert}`]);
  return { cert, key };
}

function read(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`server.${key}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`]);
  }
}
