import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config/config.load';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { createHarness } from '../../test-support/harness';
import { readConfiguredCredentials, seedAppsFromConfig } from './apps.seed';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A config file with one app whose [apps.apns] ends with `extra`, and its key file beside it. */
function config(extra: string, allowPrivate = false) {
  const dir = mkdtempSync(join(tmpdir(), 'islet-seed-'));
  dirs.push(dir);
  const key = apnsKey('ABC123DEFG');
  writeFileSync(join(dir, 'key.p8'), key.key);
  const text =
    `[security]\nallow_private_endpoints = ${allowPrivate}\n\n[[apps]]\nid = "demo"\n\n[apps.apns]\n` +
    `bundle_id = "com.example.demo"\nteam_id = "TEAM123456"\nkey_id = "ABC123DEFG"\nkey_file = "key.p8"\n${extra}`;
  const path = join(dir, 'islet.toml');
  writeFileSync(path, text);
  return parseConfig(text, path);
}

describe('[apps.apns] broadcast hosts', () => {
  test("the channel-management and broadcast host overrides reach the app's APNs credentials; absent keys leave Apple's hosts", () => {
    const [both] = readConfiguredCredentials(
      config(
        'channels_endpoint = "https://manage.example.com"\nsandbox_channels_endpoint = "https://manage-sandbox.example.com"\n' +
          'broadcast_endpoint = "https://broadcast.example.com"\nsandbox_broadcast_endpoint = "https://broadcast-sandbox.example.com"\n',
      ),
    );
    expect(both?.apns).toMatchObject({
      channelsEndpoint: 'https://manage.example.com',
      sandboxChannelsEndpoint: 'https://manage-sandbox.example.com',
      broadcastEndpoint: 'https://broadcast.example.com',
      sandboxBroadcastEndpoint: 'https://broadcast-sandbox.example.com',
    });
    const [none] = readConfiguredCredentials(config(''));
    expect(Object.keys(none!.apns!)).not.toContain('channelsEndpoint');
    expect(Object.keys(none!.apns!)).not.toContain('broadcastEndpoint');
  });

  test('a loopback host is refused naming its key, unless [security] allow_private_endpoints', () => {
    expect(() => readConfiguredCredentials(config('sandbox_channels_endpoint = "https://127.0.0.1:2195"\n'))).toThrow(
      'apns.sandbox_channels_endpoint must not be a loopback address',
    );
    expect(() => readConfiguredCredentials(config('broadcast_endpoint = "http://broadcast.example.com"\n'))).toThrow('apns.broadcast_endpoint must be an https URL');
    const [allowed] = readConfiguredCredentials(config('channels_endpoint = "https://127.0.0.1:2196"\n', true));
    expect(allowed?.apns?.channelsEndpoint).toBe('https://127.0.0.1:2196');
  });
});

describe('[[apps]] quiet hours and frequency cap', () => {
  const seeded = async (keys: string) => {
    const h = await createHarness();
    try {
      const text = `[[apps]]\nid = "calm"\n${keys}`;
      await seedAppsFromConfig({ ...h.ctx, config: { ...h.ctx.config, apps: parseConfig(text, 'islet.toml').apps } }, async () => {});
      return (await h.admin('GET', '/api/admin/apps/calm')).body;
    } finally {
      h.close();
    }
  };

  test('the file sets them; absent keys leave them unset', async () => {
    expect(await seeded('quiet_hours_start = "22:00"\nquiet_hours_end = "07:00"\nfrequency_cap_count = 3\nfrequency_cap_per_hours = 24\n')).toMatchObject({
      quietHours: { start: '22:00', end: '07:00' },
      frequencyCap: { count: 3, perHours: 24 },
    });
    expect(await seeded('')).toMatchObject({ quietHours: null, frequencyCap: null });
  });

  test('one key of a pair, or a malformed time, is refused naming the key', async () => {
    await expect(seeded('quiet_hours_start = "22:00"\n')).rejects.toThrow('quiet_hours_end is needed with quiet_hours_start');
    await expect(seeded('frequency_cap_per_hours = 24\n')).rejects.toThrow('frequency_cap_count is needed with frequency_cap_per_hours');
    await expect(seeded('quiet_hours_start = "22:00"\nquiet_hours_end = "7"\n')).rejects.toThrow('quiet_hours_end must be a time of day HH:MM');
  });
});
