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
 * the page, so the page cannot drift from what browsers get.
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

describe('§10 of docs/device-contract.md: what a browser receives', () => {
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
