import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { startWebPushStandin, type WebPushStandin } from '../../src/test-support/webpush-standin';
import { foreignRequests, launchChromium, newRecordedContext, screenshot, type Recorder } from './browser';
import { startIslet, type IsletProcess } from './islet-process';

/*
 * The console's Web Push (issue 46): the app's settings (enable, update, disable; the public key),
 * a web device in the devices list by its push service, and the web preview of a template, which
 * must be exactly what the browser then receives: a send from the console goes through the real
 * worker to the Web Push stand-in, which decrypts it as the browser would.
 */

let islet: IsletProcess;
let push: WebPushStandin;
let browser: Browser;
let page: Page;
let appSecret: string;
const recorder: Recorder = { requests: [], errors: [] };
const SLOW = 120_000;

const adminCall = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${islet.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${islet.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  islet = await startIslet();
  push = await startWebPushStandin();
  browser = await launchChromium();
  page = await (await newRecordedContext(browser, 'desktop', recorder)).newPage();
  const created = await adminCall('POST', '/apps', { id: 'news', name: 'News' });
  expect(created.status).toBe(201);
  appSecret = created.body.appSecret;
  const release = {
    version: 1,
    status: 'Live',
    templates: [
      { slug: 'story', title: 'Breaking: {{headline}}', body: 'Read it now', url: 'https://news.example.com/s/{{id}}', badge: 4, data: { section: 'world' } },
      { slug: 'digest', title: 'Your digest', body: 'Five stories' },
    ],
  };
  expect((await adminCall('POST', '/apps/news/releases', release)).status).toBe(201);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await push?.close();
  await islet?.stop();
});

describe('console: Web Push', () => {
  test('enables, updates and disables Web Push; shows web devices by push service; previews exactly what a browser receives', async () => {
    await page.goto(`${islet.url}/console`);
    await page.getByLabel('Admin token').fill(islet.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();

    // Off at first; enabling makes the key pair, whose public key the card shows.
    await page.goto(`${islet.url}/console/apps/news`);
    const card = page.getByRole('region', { name: 'Web Push', exact: true });
    await card.getByText('Off: web devices cannot subscribe').waitFor();
    await card.getByLabel('Contact (VAPID subject)').fill('mailto:ops@news.example.com');
    await card.getByLabel('Default URL').fill('https://news.example.com/');
    await card.getByRole('button', { name: 'Enable Web Push' }).click();
    const shownKey = card.getByTestId('web-push-public-key');
    await shownKey.waitFor();
    const enabled = await adminCall('GET', '/apps/news/web-push');
    expect(enabled.body).toMatchObject({ subject: 'mailto:ops@news.example.com', defaultUrl: 'https://news.example.com/', expiryDays: 60 });
    expect(await shownKey.textContent()).toBe(enabled.body.publicKey);
    expect(enabled.body.publicKey).toMatch(/^B[A-Za-z0-9_-]{86}$/);

    // A refused value is shown with the server's reason; a good update keeps the key.
    await card.getByLabel('Default URL').fill('http://news.example.com/');
    await card.getByRole('button', { name: 'Save Web Push settings' }).click();
    await card.getByText('defaultUrl must be an https URL').waitFor();
    await card.getByLabel('Default URL').fill('https://news.example.com/today');
    await card.getByLabel('Expiry (days)').fill('30');
    await card.getByRole('button', { name: 'Save Web Push settings' }).click();
    await page.getByText('Web Push settings saved').waitFor();
    const updated = await adminCall('GET', '/apps/news/web-push');
    expect(updated.body).toEqual({ ...enabled.body, defaultUrl: 'https://news.example.com/today', expiryDays: 30 });
    await screenshot(page, 'desktop-web-push-settings');

    // A browser subscribes with that key and registers; the devices list names its push service, never the endpoint.
    const subscription = push.subscribe({ applicationServerKey: updated.body.publicKey });
    const registered = await fetch(`${islet.url}/api/apps/news/devices`, {
      method: 'POST',
      headers: { 'x-service-key': appSecret, 'content-type': 'application/json' },
      body: JSON.stringify({ endUserId: 'reader-1', platform: 'web', subscription }),
    });
    expect(registered.status).toBe(200);
    await page.goto(`${islet.url}/console/apps/news/devices`);
    const row = page.locator('tr').filter({ hasText: 'reader-1' }).filter({ hasText: 'Web' });
    await row.getByText(`push service ${new URL(push.url).origin}`).waitFor();
    expect(await page.locator('main').textContent()).not.toContain(subscription.endpoint);

    // The send page previews the web message with the variables; sent from there, the browser gets exactly that.
    await page.goto(`${islet.url}/console/apps/news/send?release=1&template=story`);
    await page.getByLabel('headline', { exact: true }).fill('Moon landing');
    await page.getByLabel('id', { exact: true }).fill('42');
    const preview = page.getByRole('figure', { name: 'Web push preview' });
    await preview.getByText('"navigate": "https://news.example.com/s/42"').waitFor();
    const previewed = JSON.parse((await preview.locator('pre').textContent())!);
    expect(previewed).toEqual({
      web_push: 8030,
      notification: { title: 'Breaking: Moon landing', body: 'Read it now', navigate: 'https://news.example.com/s/42', data: { section: 'world', isletMessageId: 'msg_…' } },
      app_badge: 4,
    });
    await screenshot(page, 'desktop-web-push-preview');
    // To everyone: the confirmation counts the web device apart from phones.
    await page.getByRole('button', { name: 'Send notification' }).click();
    const asking = page.getByRole('dialog', { name: 'Send to every end user?' });
    await asking.getByText('(0 iOS, 0 Android, 1 web)').waitFor();
    await asking.getByRole('button', { name: 'Send to 1 device' }).click();
    await page.getByText('1 notification queued.').waitFor();
    const messageId = (await page.getByRole('region', { name: 'Message status' }).locator('code').textContent())!;
    for (let i = 0; i < 100 && push.inbox(subscription.endpoint).length === 0; i++) await Bun.sleep(100);
    const received = JSON.parse(push.inbox(subscription.endpoint)[0]!);
    expect(received).toEqual({ ...previewed, notification: { ...previewed.notification, data: { section: 'world', isletMessageId: messageId } } });
    await page.getByRole('region', { name: 'Message status' }).getByText('Web 1').waitFor();

    // A template without url opens the app's default URL, in the preview as in the settings.
    await page.goto(`${islet.url}/console/apps/news/send?release=1&template=digest`);
    await page.getByRole('figure', { name: 'Web push preview' }).getByText('"navigate": "https://news.example.com/today"').waitFor();

    // Disabling asks first, forgets the key, and the previews say web devices get nothing.
    await page.goto(`${islet.url}/console/apps/news`);
    await card.getByRole('button', { name: 'Disable Web Push…' }).click();
    await page.getByRole('dialog', { name: 'Disable Web Push?' }).getByRole('button', { name: 'Disable Web Push' }).click();
    await card.getByText('Off: web devices cannot subscribe').waitFor();
    expect((await adminCall('GET', '/apps/news/web-push')).status).toBe(404);
    await page.goto(`${islet.url}/console/apps/news/send?release=1&template=digest`);
    await page.getByRole('figure', { name: 'Web push preview' }).getByText('This app has no Web Push').waitFor();

    expect(recorder.errors).toEqual([]);
    expect(foreignRequests(recorder, islet.host)).toEqual([]);
  }, SLOW);

  test('at phone width the Web Push card, the web devices and the web preview do not overflow sideways', async () => {
    expect((await adminCall('PUT', '/apps/news/web-push', { subject: 'mailto:ops@news.example.com', defaultUrl: 'https://news.example.com/a/very/long/default/path/that/must/wrap/somewhere/on/a/phone' })).status).toBe(200);
    const phoneRecorder: Recorder = { requests: [], errors: [] };
    const phone = await (await newRecordedContext(browser, 'phone', phoneRecorder)).newPage();
    await phone.goto(`${islet.url}/console`);
    await phone.getByLabel('Admin token').fill(islet.adminToken);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await phone.goto(`${islet.url}/console/apps/news`);
    await phone.getByRole('region', { name: 'Web Push', exact: true }).getByTestId('web-push-public-key').waitFor();
    expect(await overflow()).toBe(0);
    await screenshot(phone, 'phone-web-push-settings');
    await phone.goto(`${islet.url}/console/apps/news/devices`);
    await phone.getByText(`push service ${new URL(push.url).origin}`).waitFor();
    expect(await overflow()).toBe(0);
    await phone.goto(`${islet.url}/console/apps/news/send?release=1&template=digest`);
    await phone.getByRole('figure', { name: 'Web push preview' }).getByText('/that/must/wrap/').waitFor();
    expect(await overflow()).toBe(0);
    await screenshot(phone, 'phone-web-push-preview');
    expect(phoneRecorder.errors).toEqual([]);
  }, SLOW);
});
