import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../../config/config.load';
import type { Config } from '../../config/config.schema';
import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { checkSettings, webPushService, type KeyMaker, type WebPushSettings } from './web-push.service';

/**
 * The `[apps.web_push]` of every `[[apps]]`, checked (subject, default_url, the PEM of
 * private_key_file) without touching the database: `serve` seeds from it and `check-config` runs
 * it. Throws one ConfigError naming each problem's key; undefined for apps without the table.
 */
export function readConfiguredWebPush(config: Config, keys: KeyMaker): (WebPushSettings | undefined)[] {
  const base = config.source.endsWith('.toml') ? dirname(config.source) : process.cwd();
  const problems: string[] = [];
  const read = config.apps.map((app, i) => {
    const web = app.web_push;
    if (!web) return undefined;
    const at = `${config.source}: apps[${i}] (${app.id}): `;
    try {
      checkSettings({ subject: web.subject, defaultUrl: web.default_url, expiryDays: web.expiry_days }, {
        subject: 'web_push.subject',
        defaultUrl: 'web_push.default_url',
        expiryDays: 'web_push.expiry_days',
      });
      let privateKeyPem: string | undefined;
      if (web.private_key_file) {
        const full = isAbsolute(web.private_key_file) ? web.private_key_file : resolve(base, web.private_key_file);
        try {
          privateKeyPem = readFileSync(full, 'utf8');
        } catch (e) {
          throw new ConfigError([`web_push.private_key_file = "${web.private_key_file}": cannot read ${full} (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
        }
        try {
          privateKeyPem = keys.importPem(privateKeyPem).privateKeyPem;
        } catch (e) {
          throw new ConfigError([`web_push.private_key_file: ${(e as Error).message}`]);
        }
      }
      return { subject: web.subject!, defaultUrl: web.default_url!, expiryDays: web.expiry_days, privateKeyPem, source: 'config' as const };
    } catch (e) {
      problems.push(at + (e instanceof HttpError || e instanceof ConfigError ? e.message : String(e)));
      return undefined;
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return read;
}

/**
 * Makes each configured app's Web Push match its `[apps.web_push]` (after the apps are seeded): a
 * key pair is generated once and kept unless `private_key_file` names one. An app without the
 * table keeps what the admin API set.
 */
export async function seedWebPushFromConfig(ctx: AppContext, keys: KeyMaker): Promise<void> {
  const settings = readConfiguredWebPush(ctx.config, keys);
  const service = webPushService(ctx, keys);
  for (const [i, app] of ctx.config.apps.entries()) {
    const wanted = settings[i];
    if (wanted) await service.configure(app.id, wanted);
  }
}
