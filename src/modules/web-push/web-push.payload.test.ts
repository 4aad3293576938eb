import { describe, expect, test } from 'bun:test';
import { declarativePushMessage } from './web-push.payload';

describe('Declarative Web Push message', () => {
  test('a full notification: the magic number, the notification members, the badge at the top level, the id in data', () => {
    const message = declarativePushMessage({
      title: 'Goal!',
      body: 'Lyon 2 – 1 Nantes',
      navigate: 'https://example.com/match/42',
      lang: 'fr-FR',
      tag: 'act_9',
      silent: true,
      badge: 3,
      messageId: 'msg_7',
      data: { matchId: '42' },
    });
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title: 'Goal!',
        body: 'Lyon 2 – 1 Nantes',
        navigate: 'https://example.com/match/42',
        lang: 'fr-FR',
        tag: 'act_9',
        silent: true,
        data: { matchId: '42', isletMessageId: 'msg_7' },
      },
      app_badge: 3,
    });
  });

  test('the least: title and navigate, empty data; absent and empty fields are left out', () => {
    expect(JSON.stringify(declarativePushMessage({ title: 'Hi', body: '', navigate: 'https://example.com/', silent: false }))).toBe(
      '{"web_push":8030,"notification":{"title":"Hi","navigate":"https://example.com/","data":{}}}',
    );
  });

  test('a badge of 0 clears it; a negative or fractional badge is not sent', () => {
    expect(declarativePushMessage({ title: 't', navigate: 'https://e.com/', badge: 0 }).app_badge).toBe(0);
    expect('app_badge' in declarativePushMessage({ title: 't', navigate: 'https://e.com/', badge: -1 })).toBe(false);
    expect('app_badge' in declarativePushMessage({ title: 't', navigate: 'https://e.com/', badge: 1.5 })).toBe(false);
  });

  test("the send's data cannot replace the message id", () => {
    const message = declarativePushMessage({ title: 't', navigate: 'https://e.com/', messageId: 'msg_1', data: { isletMessageId: 'forged' } });
    expect(message.notification.data.isletMessageId).toBe('msg_1');
  });
});
