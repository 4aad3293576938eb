import { afterEach, expect, test } from 'bun:test';
import { FakeClock } from '../../../../lib/clock';
import { startFcmStandin, type FcmStandin } from '../../../../test-support/fcm-standin';
import { FcmSender, fcmSendUrl } from './fcm.sender';

let fcm: FcmStandin;
afterEach(() => fcm?.close());

const send = (sender: FcmSender, account: ReturnType<FcmStandin['serviceAccount']>) =>
  sender.send({
    appId: 'a',
    provider: 'fcm',
    url: fcmSendUrl({ serviceAccount: account, endpoint: fcm.url }, account.project_id),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: { token: 'fcm-token-1', data: { a: 'b' } } }),
    fcm: { serviceAccount: account, endpoint: fcm.url },
  });

test('without allow_private_endpoints the stand-in on 127.0.0.1 is never reached: the channel pauses', async () => {
  fcm = await startFcmStandin();
  const outcome = await send(new FcmSender({ clock: new FakeClock() }), fcm.serviceAccount());
  expect(outcome.kind).toBe('pause-channel');
  expect(outcome.kind === 'pause-channel' && outcome.reason).toStartWith('FCM endpoint must not be a loopback address');
  expect({ sends: fcm.requests.length, tokens: fcm.tokenExchanges }).toEqual({ sends: 0, tokens: 0 });
});

test('with it, the same send is delivered', async () => {
  fcm = await startFcmStandin();
  const outcome = await send(new FcmSender({ clock: new FakeClock(), outbound: { allowPrivate: true } }), fcm.serviceAccount());
  expect(outcome.kind).toBe('delivered');
});

test('a token_uri on a refused address is refused even when the send endpoint passes', async () => {
  fcm = await startFcmStandin();
  // Names under .test (never resolvable) through a fake resolver: the send endpoint passes as
  // public, the token_uri resolves to loopback; no address outside this machine is ever named.
  const account = { ...fcm.serviceAccount(), token_uri: 'https://oauth.islet.test/token' };
  const resolve = async (host: string) => (host === 'fcm.islet.test' ? ['17.188.128.1'] : ['127.0.0.1']);
  const sender = new FcmSender({ clock: new FakeClock(), outbound: { allowPrivate: false, resolve } });
  const outcome = await sender.send({
    appId: 'a',
    provider: 'fcm',
    url: 'https://fcm.islet.test/v1/projects/p/messages:send',
    headers: {},
    body: '{}',
    fcm: { serviceAccount: account },
  });
  expect(outcome).toEqual({ kind: 'pause-channel', reason: 'token_uri host oauth.islet.test resolves to a loopback address; only public addresses are allowed unless [security] allow_private_endpoints = true' });
  expect({ sends: fcm.requests.length, tokens: fcm.tokenExchanges }).toEqual({ sends: 0, tokens: 0 });
});
