import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PhoneFleet, type ModelPhone, type SwiftAttributes } from '../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { eventually } from '../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';

/** The `ride` template of issue 39: every field type, a list, required and optional fields. */
const RIDE = {
  slug: 'ride',
  attributesType: 'RideAttributes',
  attributes: { driver: { type: 'string', required: true }, seats: { type: 'integer' } },
  contentState: {
    etaMinutes: { type: 'integer', required: true },
    progress: { type: 'number' },
    arrived: { type: 'boolean' },
    pickupAt: { type: 'date' },
    stops: { type: 'string', list: true },
  },
};

/** The app's Swift struct for it, as the modelled iPhone decodes it (isletActivityId declared, as docs/device-contract.md shows). */
const RIDE_STRUCT: SwiftAttributes = {
  attributes: { driver: { type: 'String' }, seats: { type: 'Int', optional: true }, isletActivityId: { type: 'String', optional: true } },
  contentState: {
    etaMinutes: { type: 'Int' },
    progress: { type: 'Double', optional: true },
    arrived: { type: 'Bool', optional: true },
    pickupAt: { type: 'Date', optional: true },
    stops: { type: 'String', optional: true, array: true },
  },
};

// Sent with an offset; Android gets it in UTC.
const PICKUP = '2026-11-28T10:30:00.5+01:00';
const PICKUP_UTC = '2026-11-28T09:30:00.500Z';
/** Seconds since 2001-01-01T00:00:00Z: Swift's default `Date` encoding (timeIntervalSinceReferenceDate). */
const PICKUP_SWIFT = (Date.parse(PICKUP) - Date.UTC(2001, 0, 1)) / 1000;

forEachDatabase('live-activity-templates-e2e', () => {
  /**
   * App-defined templates through a served process: defined with the admin API (and one in the
   * TOML), started on a modelled iPhone with the type's push-to-start token, on an Android phone
   * (FCM stand-in), and on an iPhone that only registered the IsletActivityAttributes token.
   */
  const APP = 'rides';
  const SECRET = 'sk_rides_test_secret';
  const ADMIN = 'rides-admin-token';
  const fleet = new PhoneFleet();
  let dir: string;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let server: SpawnedServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-la-templates-'));
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], environment: 'production', phones: fleet, bundleIds: ['com.example.rides'] });
    fcm = await startFcmStandin();
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('rides-project')));
    writeFileSync(join(dir, 'apns.p8'), key.key);
    writeFileSync(join(dir, 'ca.pem'), apns.ca);
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
        `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n` +
        `[apps.apns]\nbundle_id = "com.example.rides"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\n` +
        `environment = "production"\nendpoint = "${apns.url}"\nchannels_endpoint = "${apns.url}"\nbroadcast_endpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n` +
        `[[apps.live_activity_templates]]\nslug = "match"\nattributes_type = "MatchAttributes"\n` +
        `[apps.live_activity_templates.attributes]\nhome = { type = "string", required = true }\n` +
        `[apps.live_activity_templates.content_state]\nscore = { type = "integer", required = true, list = true }\n`,
    );
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await apns?.close();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, ADMIN);
  const la = (suffix = '') => `/api/apps/${APP}/live-activities${suffix}`;
  const templates = (suffix = '') => `/api/admin/apps/${APP}/live-activity-templates${suffix}`;

  async function registerIphone(phone: ModelPhone, endUserId: string, pushToStartTokens?: Record<string, string>): Promise<string> {
    const res = await call('POST', `/api/apps/${APP}/devices`, {
      endUserId,
      platform: 'ios',
      token: phone.deviceToken,
      pushToStartToken: phone.pushToStartToken,
      ...(pushToStartTokens ? { pushToStartTokens } : {}),
    });
    expect(res.status).toBe(200);
    return res.body.device.id;
  }

  const fcmFor = (activityId: string, event: string) => fcm.requests.find((r) => r.body.message?.data?.activityId === activityId && r.body.message.data.event === event);

  describe('app-defined Live Activity templates', () => {
    test('the admin resource: create, list (with the TOML one), get, replace, delete; built-in slugs and bad definitions refused', async () => {
      const created = await admin('POST', templates(), RIDE);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ slug: 'ride', attributesType: 'RideAttributes', source: 'api', contentState: { stops: { type: 'string', list: true } } });

      const list = await admin('GET', templates());
      expect(list.status).toBe(200);
      expect(list.body.templates.map((t: { slug: string; source: string }) => `${t.slug}:${t.source}`)).toEqual(['match:config', 'ride:api']);
      expect((await admin('GET', templates('/ride'))).body.contentState.pickupAt).toEqual({ type: 'date' });

      expect(await admin('POST', templates(), { ...RIDE, slug: 'progress-bar' })).toMatchObject({
        status: 409,
        body: { detail: 'progress-bar is a built-in template and cannot be replaced' },
      });
      expect((await admin('PUT', templates('/countdown'), { attributesType: 'X', contentState: { a: { type: 'string' } } })).status).toBe(409);
      expect((await admin('POST', templates(), RIDE)).body.detail).toBe('live activity template ride already exists');
      expect((await admin('POST', templates(), { ...RIDE, slug: 'taxi', attributesType: 'IsletActivityAttributes' })).body.detail).toBe(
        'attributesType IsletActivityAttributes belongs to the built-in templates',
      );
      expect((await admin('POST', templates(), { ...RIDE, slug: 'taxi', contentState: { isletActivityId: { type: 'string' } } })).body.detail).toBe(
        "contentState.isletActivityId is reserved for Islet's activity id",
      );
      expect((await admin('POST', templates(), { ...RIDE, slug: 'taxi', contentState: { eta: { type: 'float' } } })).status).toBe(400);
      expect((await admin('GET', templates('/nope'))).body).toMatchObject({ status: 404, detail: 'live activity template not found' });

      // Not in use: a replace may change anything; a delete goes through.
      const { slug: _slug, ...body } = RIDE;
      expect((await admin('POST', templates(), { ...RIDE, slug: 'scratch' })).status).toBe(201);
      expect((await admin('PUT', templates('/scratch'), { ...body, contentState: { other: { type: 'boolean', required: true } } })).status).toBe(200);
      expect((await admin('DELETE', templates('/scratch'))).status).toBe(200);
      expect((await admin('DELETE', templates('/scratch'))).status).toBe(404);
      expect((await admin('DELETE', templates('/status-tracker'))).status).toBe(409);
    });

    test('values are checked against the field types: wrong type, missing required and unknown fields are 400 naming the field', async () => {
      const phone = fleet.add('checks', { ios: 18 });
      await registerIphone(phone, 'checker', { RideAttributes: phone.declareAttributesType('RideAttributes', RIDE_STRUCT) });
      const start = (attributes: unknown, contentState: unknown) => call('POST', la(), { templateSlug: 'ride', attributes, contentState, targetUsers: ['checker'] });
      const cases: [unknown, unknown, string][] = [
        [{ driver: 'Ana' }, { etaMinutes: '7' }, 'contentState.etaMinutes must be an integer'],
        [{ driver: 'Ana' }, { etaMinutes: 7.5 }, 'contentState.etaMinutes must be an integer'],
        [{ driver: 'Ana' }, { etaMinutes: 7, progress: '0.5' }, 'contentState.progress must be a number'],
        [{ driver: 'Ana' }, { etaMinutes: 7, arrived: 'no' }, 'contentState.arrived must be a boolean'],
        [{ driver: 'Ana' }, { etaMinutes: 7, pickupAt: 1795000000 }, 'contentState.pickupAt must be a date (an ISO 8601 timestamp with an offset)'],
        [{ driver: 'Ana' }, { etaMinutes: 7, stops: 'Main St' }, 'contentState.stops must be a list of strings'],
        [{ driver: 5 }, { etaMinutes: 7 }, 'attributes.driver must be a string'],
        [{}, { etaMinutes: 7 }, 'attributes.driver is required'],
        [{ driver: 'Ana' }, {}, 'contentState.etaMinutes is required'],
        [{ driver: 'Ana' }, { etaMinutes: 7, speed: 40 }, 'contentState.speed is not a field of template ride'],
      ];
      for (const [attributes, contentState, detail] of cases) {
        expect(await start(attributes, contentState)).toMatchObject({ status: 400, body: { title: 'Bad Request', status: 400, detail } });
      }
      // The built-ins keep the spec's string-only rule and texts.
      expect((await call('POST', la(), { templateSlug: 'progress-bar', attributes: { label: 'Up' }, contentState: { progress: 5 } })).body.detail).toBe(
        'contentState.progress must be a string',
      );
      expect((await call('POST', la(), { templateSlug: 'taxi', contentState: {} })).body).toMatchObject({ status: 400, detail: 'invalid template slug' });
      expect(phone.activities.size).toBe(0);
    });

    test('ride on an iPhone with a RideAttributes token and on an Android phone: typed values under RideAttributes, FCM data as JSON; an iPhone with only the IsletActivityAttributes token is skipped with a reason', async () => {
      const iphone = fleet.add('rider-iphone', { ios: 18 });
      await registerIphone(iphone, 'rider-ios', { RideAttributes: iphone.declareAttributesType('RideAttributes', RIDE_STRUCT) });
      const oldApp = fleet.add('rider-old-app', { ios: 18 });
      await registerIphone(oldApp, 'rider-old');
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'rider-android', platform: 'android', token: 'fcm-rider-android' })).status).toBe(200);

      const contentState = { etaMinutes: 7, progress: 0.25, arrived: false, pickupAt: PICKUP, stops: ['Main St', 'Station'] };
      const started = await call('POST', la(), {
        templateSlug: 'ride',
        attributes: { driver: 'Ana', seats: 3 },
        contentState,
        targetUsers: ['rider-ios', 'rider-old', 'rider-android'],
      });
      expect(started.status).toBe(200);
      expect(started.body.activityCount).toBe(3);
      const idOf = (user: string) => started.body.activities.find((a: { endUserId: string }) => a.endUserId === user).id as string;
      const [iosId, oldId, androidId] = [idOf('rider-ios'), idOf('rider-old'), idOf('rider-android')];

      // The iPhone decodes the start into its struct (a Date from seconds since 2001).
      const shown = await eventually(() => iphone.shows(iosId) ?? Promise.reject(new Error('not shown yet')));
      expect(shown.attributesType).toBe('RideAttributes');
      expect(shown.attributes).toEqual({ driver: 'Ana', seats: 3, isletActivityId: iosId });
      expect(shown.contentState).toEqual({ etaMinutes: 7, progress: 0.25, arrived: false, pickupAt: Date.parse(PICKUP), stops: ['Main St', 'Station'] });
      const sent = apns.requests.find((r) => r.token === iphone.attributesTypes.get('RideAttributes')!.token)!;
      expect(sent.body.aps).toMatchObject({
        event: 'start',
        'attributes-type': 'RideAttributes',
        attributes: { driver: 'Ana', seats: 3, isletActivityId: iosId },
        'content-state': { etaMinutes: 7, progress: 0.25, arrived: false, pickupAt: PICKUP_SWIFT, stops: ['Main St', 'Station'] },
        'input-push-token': 1,
      });
      expect(sent.raw).toContain(`"pickupAt":${PICKUP_SWIFT}`);

      // Android: a data message with the slug, the type, and the typed values as JSON text (dates in UTC ISO 8601).
      const androidStart = await eventually(() => fcmFor(androidId, 'start') ?? Promise.reject(new Error('no FCM start yet')));
      expect(androidStart.body.message.data).toMatchObject({ templateSlug: 'ride', attributesType: 'RideAttributes' });
      expect(JSON.parse(androidStart.body.message.data.attributes)).toEqual({ driver: 'Ana', seats: 3 });
      expect(JSON.parse(androidStart.body.message.data.contentState)).toEqual({ ...contentState, pickupAt: PICKUP_UTC });

      // The iPhone whose app reported only the IsletActivityAttributes token cannot be started: the admin record says why.
      const skipped = await admin('GET', `/api/admin/apps/${APP}/live-activities/${oldId}`);
      expect(skipped.body).toMatchObject({ instances: [], noInstanceReason: 'device has no push-to-start token for RideAttributes' });
      expect(oldApp.activities.size).toBe(0);
      expect(apns.requests.some((r) => r.token === oldApp.pushToStartToken && r.body.aps?.attributes?.isletActivityId === oldId)).toBe(false);

      // A template in use: no delete, and a replace may only add optional fields.
      expect((await admin('DELETE', templates('/ride'))).body).toMatchObject({ status: 409, detail: 'live activity template ride is in use by 3 active activities' });
      const { slug: _slug, ...body } = RIDE;
      expect((await admin('PUT', templates('/ride'), { ...body, contentState: { ...RIDE.contentState, speed: { type: 'number', required: true } } })).body).toMatchObject({
        status: 409,
        detail: 'contentState.speed must be optional: a template in use can only gain optional fields',
      });
      expect((await admin('PUT', templates('/ride'), { ...body, contentState: { ...RIDE.contentState, etaMinutes: { type: 'number', required: true } } })).body.detail).toBe(
        'contentState.etaMinutes cannot change while the template is in use',
      );
      expect((await admin('PUT', templates('/ride'), { ...body, attributes: { seats: { type: 'integer' } } })).body.detail).toBe(
        'attributes.driver cannot be removed while the template is in use',
      );
      expect((await admin('PUT', templates('/ride'), { ...body, contentState: { ...RIDE.contentState, speedKmh: { type: 'number' } } })).status).toBe(200);

      // Update: the app reports the activity's update token; typed values follow (and the new optional field).
      const token = await eventually(() => iphone.updateTokens.get(iosId) ?? Promise.reject(new Error('no update token yet')));
      expect((await call('PUT', la(`/${iosId}/push-token`), { token })).status).toBe(200);
      const next = { etaMinutes: 2, progress: 0.9, arrived: false, pickupAt: PICKUP, stops: ['Station'], speedKmh: 31.5 };
      expect((await call('PATCH', la(`/${iosId}`), { contentState: next })).status).toBe(200);
      expect((await call('PATCH', la(`/${androidId}`), { contentState: next })).status).toBe(200);
      expect((await call('PATCH', la(`/${iosId}`), { contentState: { etaMinutes: 'two' } })).body.detail).toBe('contentState.etaMinutes must be an integer');
      await eventually(() => expect(iphone.shows(iosId)?.contentState).toMatchObject({ etaMinutes: 2, progress: 0.9, stops: ['Station'], pickupAt: Date.parse(PICKUP) }));
      const update = apns.requests.find((r) => r.token === token && r.body.aps.event === 'update')!;
      expect(update.body.aps['content-state']).toEqual({ ...next, pickupAt: PICKUP_SWIFT });
      const androidUpdate = await eventually(() => fcmFor(androidId, 'update') ?? Promise.reject(new Error('no FCM update yet')));
      expect(JSON.parse(androidUpdate.body.message.data.contentState)).toEqual({ ...next, pickupAt: PICKUP_UTC });

      // End with a final typed state: the phone shows it ended; Android gets the end.
      const final = { etaMinutes: 0, arrived: true, pickupAt: PICKUP };
      expect((await call('DELETE', la(`/${iosId}`), { contentState: final })).status).toBe(200);
      for (const id of [oldId, androidId]) expect((await call('DELETE', la(`/${id}`))).status).toBe(200);
      await eventually(() => expect(iphone.activities.get(iosId)).toMatchObject({ ended: true, contentState: { etaMinutes: 0, arrived: true, pickupAt: Date.parse(PICKUP) } }));
      expect(apns.requests.find((r) => r.token === token && r.body.aps.event === 'end')!.body.aps['content-state']).toEqual({ ...final, pickupAt: PICKUP_SWIFT });
      const androidEnd = await eventually(() => fcmFor(androidId, 'end') ?? Promise.reject(new Error('no FCM end yet')));
      expect(JSON.parse(androidEnd.body.message.data.contentState)).toEqual({ ...next, pickupAt: PICKUP_UTC });
      expect(iphone.refusedStarts).toEqual([]);

      // No Active activity uses it any more: it can be deleted.
      expect((await admin('DELETE', templates('/ride'))).status).toBe(200);
    }, 60_000);

    test('the TOML template is served like the API ones: a list value of integers reaches the phone', async () => {
      const phone = fleet.add('fan', { ios: 17 });
      const token = phone.declareAttributesType('MatchAttributes', { attributes: { home: { type: 'String' } }, contentState: { score: { type: 'Int', array: true } } });
      await registerIphone(phone, 'fan', { MatchAttributes: token });
      const started = await call('POST', la(), { templateSlug: 'match', attributes: { home: 'Lions' }, contentState: { score: [1, 0] }, targetUsers: ['fan'] });
      expect(started.status).toBe(200);
      const id = started.body.activities[0].id;
      await eventually(() => expect(phone.shows(id)?.contentState).toEqual({ score: [1, 0] }));
      expect((await call('POST', la(), { templateSlug: 'match', attributes: { home: 'Lions' }, contentState: { score: [1, 'x'] } })).body.detail).toBe(
        'contentState.score must be a list of integers',
      );
      expect((await call('DELETE', la(`/${id}`))).status).toBe(200);
    }, 30_000);

    test('a broadcast of an app-defined template: typed values checked, started at the push-to-start token of its type, typed updates through the channel', async () => {
      const fan = fleet.add('broadcast-fan', { ios: 18 });
      await registerIphone(fan, 'bfan', { MatchAttributes: fan.declareAttributesType('MatchAttributes', { attributes: { home: { type: 'String' } }, contentState: { score: { type: 'Int', array: true } } }) });
      const other = fleet.add('broadcast-other', { ios: 18 });
      const otherId = await registerIphone(other, 'bother');
      const bc = (suffix = '') => `/api/apps/${APP}/broadcasts${suffix}`;
      expect((await call('POST', bc(), { templateSlug: 'match', attributes: { home: 'Lions' }, contentState: { score: ['1'] } })).body.detail).toBe(
        'contentState.score must be a list of integers',
      );
      const made = await call('POST', bc(), { templateSlug: 'match', attributes: { home: 'Lions' }, contentState: { score: [0, 0] } });
      expect(made.status).toBe(201);
      const id = made.body.id;
      await eventually(async () => expect((await call('GET', bc(`/${id}`))).body.channel.state).toBe('open'));
      expect((await admin('DELETE', templates('/match'))).body.detail).toBe('live activity template match is in use by 1 active activity');

      const started = await call('POST', bc(`/${id}/subscribers`), { targetUsers: ['bfan', 'bother'] });
      expect(started.body).toEqual({ started: 1, skipped: [{ deviceId: otherId, reason: 'device has no push-to-start token for MatchAttributes' }] });
      await eventually(() => expect(fan.shows(id)?.contentState).toEqual({ score: [0, 0] }));
      expect((await call('PATCH', bc(`/${id}`), { contentState: { score: [2, 1] } })).status).toBe(200);
      await eventually(() => expect(fan.shows(id)?.contentState).toEqual({ score: [2, 1] }));
      expect((await call('PATCH', bc(`/${id}`), { contentState: { score: 3 } })).body.detail).toBe('contentState.score must be a list of integers');
      expect((await call('DELETE', bc(`/${id}`))).status).toBe(200);
    }, 30_000);

    test('an activity stream of an app-defined template: typed values start it, the same values are a noop, new ones an update', async () => {
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'stream-fan', platform: 'android', token: 'fcm-stream-fan' })).status).toBe(200);
      const put = (score: unknown) =>
        call('PUT', `/api/apps/${APP}/live-activity-streams/match-1`, { templateSlug: 'match', attributes: { home: 'Lions' }, contentState: { score }, targetUsers: ['stream-fan'] });
      const first = await put([0, 0]);
      expect(first.body.status).toBe('started');
      expect((await put([0, 0])).body.status).toBe('noop');
      expect((await put([1, 0])).body.status).toBe('updated');
      expect((await put(['1', 0])).body).toMatchObject({ status: 400, detail: 'contentState.score must be a list of integers' });
      const id = first.body.activityIds[0];
      const update = await eventually(() => fcmFor(id, 'update') ?? Promise.reject(new Error('no FCM update yet')));
      expect(JSON.parse(update.body.message.data.contentState)).toEqual({ score: [1, 0] });
      expect((await call('DELETE', `/api/apps/${APP}/live-activity-streams/match-1`)).status).toBe(200);
    }, 30_000);
  });
});
