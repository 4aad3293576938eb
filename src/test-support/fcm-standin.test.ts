import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { serviceAccountClient } from '../modules/delivery/providers/fcm/fcm.auth';
import { FCM_SCOPE, startFcmStandin, type FcmStandin } from './fcm-standin';

let fcm: FcmStandin;
afterEach(async () => fcm?.close());

async function assertion(privateKey: string, claims: Record<string, unknown>) {
  return new SignJWT({ scope: FCM_SCOPE, ...claims })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(await importPKCS8(privateKey, 'RS256'));
}

async function exchange(jwt: string) {
  const res = await fetch(fcm.tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe('FCM stand-in', () => {
  test("google-auth-library's client gets a token from the account's token_uri", async () => {
    fcm = await startFcmStandin();
    const account = fcm.serviceAccount('p1');
    const { token } = await (await serviceAccountClient(account)).getAccessToken();
    expect(token).toStartWith('ya29.');
    expect(fcm.tokenExchanges).toBe(1);
  }, 30_000);

  test('refuses assertions signed by another key, for another audience, or without the FCM scope', async () => {
    fcm = await startFcmStandin();
    const account = fcm.serviceAccount('p1');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const good = { iss: account.client_email, aud: fcm.tokenUri };
    expect((await exchange(await assertion(other, good))).body.error).toBe('invalid_grant');
    expect((await exchange(await assertion(account.private_key, { ...good, aud: 'https://oauth2.googleapis.com/token' }))).body.error).toBe('invalid_grant');
    expect((await exchange(await assertion(account.private_key, { ...good, scope: 'email' }))).body.error).toBe('invalid_scope');
    expect((await exchange(await assertion(account.private_key, good))).status).toBe(200);
  });

  test("accepts only its own access tokens for the token's project, and string data values", async () => {
    fcm = await startFcmStandin();
    const account = fcm.serviceAccount('p1');
    const { body } = await exchange(await assertion(account.private_key, { iss: account.client_email, aud: fcm.tokenUri }));
    const send = async (project: string, token: string, message: unknown) => {
      const res = await fetch(`${fcm.url}/v1/projects/${project}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await send('p1', body.access_token!, { token: 't', data: { a: 'b' } })).status).toBe(200);
    expect((await send('p1', 'ya29.forged', { token: 't' })).body.error.status).toBe('UNAUTHENTICATED');
    expect((await send('p2', body.access_token!, { token: 't' })).body.error.status).toBe('PERMISSION_DENIED');
    // As Google answers it: the FcmError code and a google.rpc.BadRequest naming the field.
    expect((await send('p1', body.access_token!, { token: 't', data: { a: 'b', n: 1 } })).body.error).toEqual({
      code: 400,
      message: "Invalid value at 'message.data[1].value' (TYPE_STRING), 1",
      status: 'INVALID_ARGUMENT',
      details: [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'message.data[1].value', description: "Invalid value at 'message.data[1].value' (TYPE_STRING), 1" }],
        },
      ],
    });
  });

  test('a topic message reaches the devices subscribed to the topic, and only those', async () => {
    fcm = await startFcmStandin();
    const account = fcm.serviceAccount('p1');
    const { body } = await exchange(await assertion(account.private_key, { iss: account.client_email, aud: fcm.tokenUri }));
    const send = async (message: unknown) => {
      const res = await fetch(`${fcm.url}/v1/projects/p1/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${body.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    fcm.subscribe('fan-1', 'bc_match-42');
    fcm.subscribe('fan-2', 'bc_match-42');
    fcm.subscribe('other', 'bc_match-7');
    fcm.subscribe('leaver', 'bc_match-42');
    fcm.unsubscribe('leaver', 'bc_match-42');
    const data = { type: 'broadcast', event: 'update', score: '1-0' };
    expect((await send({ topic: 'bc_match-42', data, android: { priority: 'HIGH' } })).body.name).toStartWith('projects/p1/messages/');
    expect(fcm.inbox('fan-1')).toEqual([{ via: 'topic', message: { topic: 'bc_match-42', data, android: { priority: 'HIGH' } } }]);
    expect(fcm.inbox('fan-2')).toHaveLength(1);
    expect(fcm.inbox('other')).toEqual([]);
    expect(fcm.inbox('leaver')).toEqual([]);
    expect((await send({ token: 'fan-1', data: { direct: 'yes' } })).status).toBe(200);
    expect(fcm.inbox('fan-1').map((m) => m.via)).toEqual(['topic', 'token']);
    expect((await send({ topic: 'bc_match-42', token: 'fan-1', data })).body.error.message).toContain('Exactly one of');
    expect((await send({ topic: '/topics/bc_match-42', data })).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await send({ topic: 'bc_match-42', data: { n: 1 } })).body.error.status).toBe('INVALID_ARGUMENT');
    expect(fcm.inbox('fan-2')).toHaveLength(1);
  });
});
