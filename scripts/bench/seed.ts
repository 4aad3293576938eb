/**
 * Seeding for the fan-out benchmarks: migrates the database, applies the configured apps, and
 * writes the devices straight into it (one end user each, tokens in the ledger as
 * src/modules/tokens keeps them): `fanout` iOS devices of the app `fanout`, and `starts` iOS users
 * of the app `starts` with a push-to-start token each. `locales`: the fan-out devices' locales, in
 * turn (none: no locale).
 */
import { join } from 'node:path';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { apnsToken } from '../../src/test-support/apns-standin';

export async function seed(dir: string, toml: string, counts: { fanout: number; starts: number }, locales: string[] = []): Promise<void> {
  const { ctx } = await bootstrapSqlite(parseConfig(toml, join(dir, 'islet.toml')), { logger: silentLogger });
  const client = ctx.db.sqlite.$client;
  const at = Date.now();
  const user = client.prepare('INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES (?, ?, 0, ?, ?)');
  const insertDevice = client.prepare(
    `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, locale, created_at, updated_at) VALUES (?, ?, ?, 'ios', ?, 'production', ?, ?, ?)`,
  );
  const token = client.prepare(
    `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at) VALUES (?, ?, ?, ?, 'production', 'active', ?, ?)`,
  );
  const device = (id: string, app: string, user: string, pushToStart: boolean, locale: string | null = null) => {
    const value = apnsToken();
    insertDevice.run(id, app, user, value, locale, at, at);
    token.run(app, 'apns_device', value, id, at, at);
    if (pushToStart) token.run(app, 'apns_push_to_start', apnsToken(), id, at, at);
  };
  client.transaction(() => {
    for (let i = 0; i < counts.fanout; i++) {
      user.run('fanout', `user-${i}`, at, at);
      device(`dev_fanout_${i}`, 'fanout', `user-${i}`, false, locales.length > 0 ? locales[i % locales.length] : null);
    }
    for (let i = 0; i < counts.starts; i++) {
      user.run('starts', `user-${i}`, at, at);
      device(`dev_starts_${i}`, 'starts', `user-${i}`, true);
    }
  })();
  client.close();
}
