import { describe, expect, test } from 'bun:test';
import { routeWebPush } from '../../src/modules/delivery/worker/webpush.routing';
import type { ClaimedDelivery, WebPushChannel } from '../../src/modules/delivery/worker/routing.types';
import type { TemplateOptions } from '../../src/modules/notifications/releases/template-options';
import type { TemplateRow } from '../../src/modules/notifications/releases/releases.types';
import { notificationContent } from '../../src/modules/notifications/send/notification-content';
import { DEFAULT_URL_STAND_IN, webPushMessage } from './web-push-preview';

/** What the worker sends a web device for this template and these variables (message id `msg_…`). */
function sent(title: string, body: string, options: TemplateOptions, variables: Record<string, string>, defaultUrl: string): unknown {
  const template = { slug: 't', version: 1, title, body, options: JSON.stringify(options) } as unknown as TemplateRow;
  const content = notificationContent(template, { variables }, { messageId: 'msg_…', now: 0, defaultTtlSeconds: 60 });
  const web: WebPushChannel = { keys: { privateKeyPem: '', publicKey: 'B' }, subject: 'mailto:a@example.com', defaultUrl, openSubscription: () => ({ p256dh: Buffer.alloc(65), auth: Buffer.alloc(16) }) };
  const route = routeWebPush({ appId: 'a', messageId: 1, tokenValue: 'https://push.example.com/1', tokenSecret: 's' } as ClaimedDelivery, content, web, new Map());
  if (route.action !== 'send') throw new Error(JSON.stringify(route));
  return JSON.parse(route.request.webpush!.payload);
}

describe("the console's web push preview", () => {
  test('is what the worker sends for the same template and variables: url, badge and data rendered, fields the web lacks left out', () => {
    const options: TemplateOptions = { url: 'https://e.com/o/{{order}}', badge: 2, data: { kind: '{{kind}}' }, subtitle: 'From {{shop}}', image: 'https://img.example.com/a.png', sound: 'chime' };
    const variables = { order: '7', kind: 'order', shop: 'Acme' };
    const preview = webPushMessage('Order {{order}}', 'Shipped to {{shop}}', options, variables, 'https://e.com/');
    expect(preview).toEqual(sent('Order {{order}}', 'Shipped to {{shop}}', options, variables, 'https://e.com/') as typeof preview);
    expect(preview.notification.navigate).toBe('https://e.com/o/7');
  });

  test("without a url it opens the app's default URL, as sent; unknown, a stand-in says so", () => {
    expect(webPushMessage('Hi', '', {}, {}, 'https://e.com/home')).toEqual(sent('Hi', '', {}, {}, 'https://e.com/home') as ReturnType<typeof webPushMessage>);
    expect(webPushMessage('Hi', '', {}).notification.navigate).toBe(DEFAULT_URL_STAND_IN);
  });

  test('without variables the placeholders stay visible, and broken syntax is shown as typed', () => {
    expect(webPushMessage('Order {{order}}', 'x', { url: 'https://e.com/{{order}}' }).notification).toMatchObject({ title: 'Order {{order}}', navigate: 'https://e.com/{{order}}' });
    expect(webPushMessage('Order {{order', 'x', {}, { order: '1' }).notification.title).toBe('Order {{order');
  });
});
