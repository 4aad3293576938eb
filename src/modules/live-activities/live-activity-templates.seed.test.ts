import { afterEach, expect, test } from 'bun:test';
import type { LiveActivityTemplateConfig } from '../../config/config.schema';
import type { AppContext } from '../../context';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { seedAppsFromConfig } from '../apps/apps.seed';
import { liveActivityTemplatesService } from './live-activity-templates.service';

const ride: LiveActivityTemplateConfig = {
  slug: 'ride',
  attributesType: 'RideAttributes',
  attributes: {},
  contentState: { etaMinutes: { type: 'integer', required: true } },
};

forEachDatabase('TOML live activity templates at start', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  /** Seeds the app `a1` of the configuration with these templates, as `serve` does at start. */
  const seed = (templates: LiveActivityTemplateConfig[]) => {
    const service = liveActivityTemplatesService(h.ctx);
    const ctx = { ...h.ctx, config: { ...h.ctx.config, source: 'islet.toml', apps: [{ id: 'a1', plan: 'pro', liveActivityTemplates: templates }] } } as AppContext;
    return seedAppsFromConfig(ctx, async () => {}, (appId, defs) => service.seed(appId, defs));
  };

  test('created at the first start, unchanged after the next; while in use only optional fields may be added, else the start names the field', async () => {
    h = await createHarness({ database });
    await seed([ride]);
    const first = await h.admin('GET', '/api/admin/apps/a1/live-activity-templates/ride');
    expect(first.body).toMatchObject({ source: 'config', contentState: { etaMinutes: { type: 'integer', required: true } } });
    await seed([ride]);
    expect((await h.admin('GET', '/api/admin/apps/a1/live-activity-templates/ride')).body.updatedAt).toBe(first.body.updatedAt);

    const secret = (await h.admin('GET', '/api/admin/apps/a1/secrets')).body.appSecret;
    const service = (method: string, path: string, body?: unknown) => h.request(method, path, { body, headers: { 'x-service-key': secret } });
    expect((await service('POST', '/api/apps/a1/devices', { endUserId: 'u1', platform: 'android', token: 'fcm-u1' })).status).toBe(200);
    expect((await service('POST', '/api/apps/a1/live-activities', { templateSlug: 'ride', contentState: { etaMinutes: 5 } })).status).toBe(200);

    await seed([{ ...ride, contentState: { ...ride.contentState, note: { type: 'string' } } }]);
    expect((await h.admin('GET', '/api/admin/apps/a1/live-activity-templates/ride')).body.contentState.note).toEqual({ type: 'string' });
    await expect(seed([{ ...ride, contentState: { etaMinutes: { type: 'number', required: true } } }])).rejects.toThrow(
      'islet.toml: apps[0] (a1): contentState.etaMinutes cannot change while the template is in use',
    );
    await expect(seed([{ ...ride, slug: 'countdown' }])).rejects.toThrow('islet.toml: apps[0] (a1): countdown is a built-in template and cannot be replaced');
  });
});
