import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { TemplateRow } from '../../src/modules/notifications/releases/releases.types';
import { notificationContent } from '../../src/modules/notifications/send/notification-content';
import { routeWebPush } from '../../src/modules/delivery/worker/webpush.routing';
import type { ClaimedDelivery, WebPushChannel } from '../../src/modules/delivery/worker/routing.types';
import { DEVICE_CONTRACT_PATH } from './device-contract-fields';

/**
 * §10 of docs/device-contract.md shows a template, a send and what a browser receives. These tests
 * build the message from that template through Islet's own code (the send's content, then the web
 * routing that makes the Declarative Web Push JSON and the RFC 8030 headers) and compare it with
 * the page, so the page cannot drift from what browsers get; and they run the page's JavaScript
 * (the page module, the service worker) against stand-ins of the browser APIs it calls.
 */
const page = () => readFileSync(DEVICE_CONTRACT_PATH, 'utf8');

/** The first fenced block of `language` after `<!-- web-push-example: name -->`. */
function block(text: string, name: string, language: string): string {
  const marker = `<!-- web-push-example: ${name} -->`;
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`docs/device-contract.md has no ${marker}`);
  const fence = text.slice(at).match(new RegExp('```' + language + '\\n([\\s\\S]*?)```'));
  if (!fence) throw new Error(`no \`\`\`${language} block after ${marker}`);
  return fence[1]!;
}

const DEFAULT_URL = 'https://shop.example.com/';

/** What a browser receives for the page's template and send, as the worker builds it. */
function built(text: string) {
  const { slug, title, body, ...options } = JSON.parse(block(text, 'template', 'json')) as Record<string, unknown>;
  const send = JSON.parse(block(text, 'send', 'json')) as { templateSlug: string; variables: Record<string, string> };
  expect(send.templateSlug).toBe(slug as string);
  const template = { slug, version: 1, title, body, options: JSON.stringify(options) } as unknown as TemplateRow;
  const content = notificationContent(template, { variables: send.variables }, { messageId: 'msg_…', now: Date.UTC(2026, 10, 29), defaultTtlSeconds: 2_419_200 });
  const web: WebPushChannel = {
    keys: { privateKeyPem: '', publicKey: 'BO' },
    subject: 'mailto:ops@example.com',
    defaultUrl: DEFAULT_URL,
    openSubscription: () => ({ p256dh: Buffer.alloc(65), auth: Buffer.alloc(16) }),
  };
  const row = { appId: 'shop', messageId: 1, tokenValue: 'https://web.push.apple.com/abc', tokenSecret: 'sealed' } as ClaimedDelivery;
  const route = routeWebPush(row, content, web, new Map());
  if (route.action !== 'send' || !route.request.webpush) throw new Error(`the example is not sent to a browser: ${JSON.stringify(route)}`);
  return route.request.webpush;
}

/** The `Name: value` lines of the page's http block, comments cut. */
function headers(text: string): Record<string, string> {
  const lines = block(text, 'received', 'http').split('\n').slice(1);
  return Object.fromEntries(lines.filter((l) => l.includes(':')).map((l) => {
    const [name, ...rest] = l.replace(/\s+#.*$/, '').split(':');
    return [name!.trim().toLowerCase(), rest.join(':').trim()];
  }));
}

describe('§10 of docs/device-contract.md, Web Push', () => {
  test("the page's Declarative Web Push JSON is what Islet builds from the page's template and send", () => {
    const text = page();
    expect(JSON.parse(block(text, 'received', 'json'))).toEqual(JSON.parse(built(text).payload));
  });

  test("the page's TTL, Urgency and Topic are the headers Islet sends with it", () => {
    const text = page();
    const sent = built(text);
    const shown = headers(text);
    expect(shown['content-encoding']).toBe('aes128gcm');
    expect(Number(shown.ttl)).toBe(sent.ttlSeconds!);
    expect(shown.urgency).toBe(sent.urgency!);
    expect(shown.topic).toBe(sent.topic!);
  });

  test('the comparison fails for a page whose example differs from the code (a changed title, a field the web never gets)', () => {
    const text = page();
    const received = block(text, 'received', 'json');
    const wrongTitle = text.replace(received, received.replace('"Order 7"', '"Order 8"'));
    expect(JSON.parse(block(wrongTitle, 'received', 'json'))).not.toEqual(JSON.parse(built(wrongTitle).payload));
    const withSubtitle = text.replace(received, received.replace('"title": "Order 7"', '"title": "Order 7", "subtitle": "From Acme"'));
    expect(JSON.parse(block(withSubtitle, 'received', 'json'))).not.toEqual(JSON.parse(built(withSubtitle).payload));
  });

  test('a template without url opens the app defaultUrl; the message id stays in data', () => {
    const text = page();
    const template = block(text, 'template', 'json');
    const withoutUrl = text.replace(template, template.replace(/"url": "[^"]*",\s*/, ''));
    const message = JSON.parse(built(withoutUrl).payload);
    expect(message.notification.navigate).toBe(DEFAULT_URL);
    expect(message.notification.data.isletMessageId).toBe('msg_…');
  });

  test("the page's JavaScript (the page module and the service worker) parses", () => {
    const section = page().slice(page().indexOf('## 10. Web Push'));
    const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBe(2);
    const parser = new Bun.Transpiler({ loader: 'js' });
    for (const code of blocks) expect(() => parser.transformSync(code)).not.toThrow();
    expect(() => parser.transformSync(`${blocks[1]!}\n})`)).toThrow();
  });

  test("the page's service worker shows the page's message, opens navigate and reports the open on a click, and registers a changed subscription", async () => {
    const text = page();
    const section = text.slice(text.indexOf('## 10. Web Push'));
    const worker = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!)[1]!;
    const handlers = new Map<string, (event: unknown) => void>();
    const shown: unknown[][] = [];
    const opened: string[] = [];
    const posted: { url: string; body: unknown; signature: string }[] = [];
    const badges: number[] = [];
    const stored = new Map<string, unknown>([['/islet-session', { appId: 'shop', endUserId: 'user-42', signature: 'sig', deviceId: 'dev_1' }]]);
    const self = {
      addEventListener: (type: string, fn: (event: unknown) => void) => handlers.set(type, fn),
      registration: { showNotification: async (...args: unknown[]) => void shown.push(args), pushManager: { subscribe: async () => ({ toJSON: () => ({ endpoint: 'https://push.example.com/new' }) }) } },
    };
    const caches = { open: async () => ({ match: async (key: string) => (stored.has(key) ? Response.json(stored.get(key)) : undefined), put: async (key: string, res: Response) => void stored.set(key, await res.json()) }) };
    const fetch = async (url: string, init: { body: string; headers: Record<string, string> }) => {
      posted.push({ url, body: JSON.parse(init.body), signature: init.headers['x-end-user-signature']! });
      return Response.json({ device: { id: 'dev_2' } });
    };
    const navigator = { setAppBadge: async (n: number) => void badges.push(n), clearAppBadge: async () => void badges.push(0) };
    new Function('self', 'clients', 'caches', 'fetch', 'navigator', worker)(self, { openWindow: async (url: string) => void opened.push(url) }, caches, fetch, navigator);
    const run = async (type: string, event: Record<string, unknown>) => {
      let done: Promise<unknown> = Promise.resolve();
      handlers.get(type)!({ ...event, waitUntil: (p: Promise<unknown>) => void (done = p) });
      await done;
    };

    const message = JSON.parse(block(text, 'received', 'json'));
    await run('push', { data: { json: () => message } });
    expect(shown).toEqual([['Order 7', { body: 'Your order is shipped', lang: undefined, tag: undefined, silent: undefined, data: { navigate: 'https://shop.example.com/orders/7', kind: 'order', isletMessageId: 'msg_…' } }]]);
    expect(badges).toEqual([3]);

    await run('notificationclick', { notification: { close: () => undefined, data: (shown[0]![1] as { data: unknown }).data } });
    expect(opened).toEqual(['https://shop.example.com/orders/7']);
    expect(posted).toEqual([{ url: `/islet/api/apps/shop/notifications/${encodeURIComponent('msg_…')}/opened`, body: { endUserId: 'user-42', deviceId: 'dev_1' }, signature: 'sig' }]);

    await run('pushsubscriptionchange', { newSubscription: { toJSON: () => ({ endpoint: 'https://push.example.com/renewed' }) } });
    expect(posted[1]).toEqual({ url: '/islet/api/apps/shop/devices', body: { endUserId: 'user-42', platform: 'web', subscription: { endpoint: 'https://push.example.com/renewed' } }, signature: 'sig' });
    expect(stored.get('/islet-session')).toMatchObject({ deviceId: 'dev_2' });
  });

  test("the page's module subscribes with the public key's bytes, registers the subscription signed, and keeps the device id for the service worker", async () => {
    const section = page().slice(page().indexOf('## 10. Web Push'));
    const module = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!)[0]!.replaceAll('export async function', 'async function');
    const key = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xfb)]);
    const calls: { url: string; init?: { headers: Record<string, string>; body: string } }[] = [];
    const fetch = async (url: string, init?: { headers: Record<string, string>; body: string }) => {
      calls.push({ url, init });
      return url.endsWith('/public-key') ? Response.json({ publicKey: key.toString('base64url') }) : Response.json({ device: { id: 'dev_9' } });
    };
    let subscribedWith: { userVisibleOnly: boolean; applicationServerKey: Uint8Array } | undefined;
    const subscription = { toJSON: () => ({ endpoint: 'https://push.example.com/1', expirationTime: null, keys: { p256dh: 'p', auth: 'a' } }) };
    const registration = { pushManager: { getSubscription: async () => null, subscribe: async (options: typeof subscribedWith) => ((subscribedWith = options), subscription) } };
    const navigator = { serviceWorker: { register: async () => registration }, language: 'de-AT' };
    const stored = new Map<string, unknown>();
    const caches = { open: async () => ({ put: async (k: string, res: Response) => void stored.set(k, await res.json()) }) };
    const enable = new Function('window', 'navigator', 'Notification', 'caches', 'fetch', `${module}\nreturn enableNotifications;`)(
      { PushManager: class {} }, navigator, { requestPermission: async () => 'granted' }, caches, fetch,
    ) as (session: unknown) => Promise<string | null>;

    expect(await enable({ appId: 'shop', endUserId: 'user-42', signature: 'sig' })).toBe('dev_9');
    expect(subscribedWith!.userVisibleOnly).toBe(true);
    expect(Buffer.from(subscribedWith!.applicationServerKey)).toEqual(key);
    expect(calls[0]!.url).toBe('/islet/api/apps/shop/web-push/public-key');
    expect(calls[1]!.url).toBe('/islet/api/apps/shop/devices');
    expect(calls[1]!.init!.headers['x-end-user-signature']).toBe('sig');
    expect(JSON.parse(calls[1]!.init!.body)).toMatchObject({ endUserId: 'user-42', platform: 'web', subscription: subscription.toJSON(), locale: 'de-AT' });
    expect(stored.get('/islet-session')).toEqual({ appId: 'shop', endUserId: 'user-42', signature: 'sig', deviceId: 'dev_9' });
  });

  test("the page's code subscribes with the public key, registers platform web and handles the three service worker events", () => {
    const text = page();
    const section = text.slice(text.indexOf('## 10. Web Push'));
    for (const needed of [
      '/web-push/public-key',
      "pushManager.subscribe({ userVisibleOnly: true, applicationServerKey",
      "platform: 'web', subscription: subscription.toJSON()",
      "'x-end-user-signature'",
      "addEventListener('push'",
      'event.data?.json()',
      "addEventListener('notificationclick'",
      'clients.openWindow(navigate)',
      '/opened`',
      "addEventListener('pushsubscriptionchange'",
    ])
      expect(section).toContain(needed);
  });
});
