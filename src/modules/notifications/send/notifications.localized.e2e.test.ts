import { afterAll, beforeAll, expect, test } from 'bun:test';
import { PhoneFleet } from '../../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';
import { forEachDatabase } from '../../../test-support/databases';
import { eventually, until } from '../../../test-support/eventually';

forEachDatabase('localized-notifications-e2e', () => {
  /**
   * Issue 37 part 2 through a real server process: one send reaches an iPhone in de-AT (behind the
   * APNs stand-in) and Android phones in de-DE and fr (the FCM stand-in's inbox), each in the text
   * its locale matches, and the one message id covers them all.
   */
  const APP = 'l10n';
  const SECRET = 'sk_l10n_e2e_secret';
  const fleet = new PhoneFleet();
  const iphone = fleet.add('iphone');
  const german = `fcm-de-${crypto.randomUUID()}`;
  const french = `fcm-fr-${crypto.randomUUID()}`;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let served: ServedApp;

  beforeAll(async () => {
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], phones: fleet });
    fcm = await startFcmStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more:
        `[apps.apns]\nbundle_id = "com.example.l10n"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'apns.p8': key.key, 'ca.pem': apns.ca, 'firebase.json': JSON.stringify(fcm.serviceAccount('l10n-project')) },
    });
    const template = {
      slug: 'welcome',
      title: 'Welcome, {{name}}',
      body: 'Your order has shipped',
      localizations: { 'de-AT': { title: 'Servus, {{name}}' }, de: { title: 'Willkommen, {{name}}', body: 'Deine Bestellung ist unterwegs' } },
    };
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [template] })).status).toBe(201);
    for (const [endUserId, platform, token, locale] of [
      ['anna', 'ios', iphone.deviceToken, 'de-at'],
      ['dieter', 'android', german, 'de-DE'],
      ['francoise', 'android', french, 'fr'],
    ] as const) {
      const res = await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform, token, locale });
      expect(res.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await apns?.close();
    await fcm?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const inbox = (token: string) => fcm.inbox(token).map((m) => m.message);

  test('devices in de-AT, de-DE and fr receive the de-AT, de and default texts of one send, all under its message id', async () => {
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'welcome', variables: { name: 'Kim' } });
    expect(sent.body).toEqual({ messageCount: 3, messageId: expect.stringMatching(/^msg_/) });
    const { messageId } = sent.body;
    await until('every phone has the notification', () => iphone.pushes.length === 1 && inbox(german).length === 1 && inbox(french).length === 1);

    expect(iphone.notifications).toEqual([{ title: 'Servus, Kim', body: 'Your order has shipped' }]);
    expect(iphone.pushes[0]!.payload.isletMessageId).toBe(messageId);
    expect(inbox(german)[0]).toMatchObject({ notification: { title: 'Willkommen, Kim', body: 'Deine Bestellung ist unterwegs' }, data: { isletMessageId: messageId } });
    expect(inbox(french)[0]).toMatchObject({ notification: { title: 'Welcome, Kim', body: 'Your order has shipped' }, data: { isletMessageId: messageId } });

    const sentCounts = (sent: number) => ({ total: sent, queued: 0, held: 0, sending: 0, sent, failed: 0, dropped: 0, superseded: 0 });
    await eventually(async () => {
      const status = await call('GET', `/api/apps/${APP}/notifications/${messageId}`);
      expect(status.body).toMatchObject({ messageId, templateSlug: 'welcome', deliveries: sentCounts(3), platforms: { ios: sentCounts(1), android: sentCounts(2) } });
    });
  }, 30_000);

  test('a localization tag that is not BCP 47 answers 400 naming it', async () => {
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 2 })).status).toBe(201);
    const bad = await admin('PUT', `/api/admin/apps/${APP}/releases/2/templates/welcome`, { title: 'T', body: 'B', localizations: { 'de-AT': { title: 'x' }, fr_FR: { title: 'y' } } });
    expect(bad.body).toEqual({ title: 'Bad Request', status: 400, detail: 'localizations: fr_FR is not a BCP 47 language tag (such as de, de-AT, pt-BR)' });
  }, 30_000);
});
