import { generateKeyPairSync } from 'node:crypto';

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** The actions makeEveryKindOfChange performs, in order. */
export const EVERY_CHANGE = [
  'app.create',
  'app.update',
  'secret.rotate',
  'apns.set',
  'apns.remove',
  'fcm.set',
  'fcm.remove',
  'web-push.set',
  'web-push.remove',
  'device.register',
  'tester.set',
  'device.remove',
  'release.create',
  'template.put',
  'template.delete',
  'release.status',
  'app.delete',
] as const;

/**
 * Makes one change of every audited kind through the admin API (`call` sends one admin request)
 * and returns the secret values it used, which the audit log must never contain.
 */
export async function makeEveryKindOfChange(call: Call): Promise<{ secrets: string[] }> {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const fcmKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const created = await ok('POST', '/api/admin/apps', { id: 'audited', name: 'Audited', plan: 'free' });
  await ok('PATCH', '/api/admin/apps/audited', { plan: 'pro' });
  const rotated = await ok('POST', '/api/admin/apps/audited/secrets/app-secret');
  await ok('PUT', '/api/admin/apps/audited/apns', { bundleId: 'com.example.audited', teamId: 'TEAM123456', keyId: 'KEY1234567', key });
  await ok('DELETE', '/api/admin/apps/audited/apns');
  await ok('PUT', '/api/admin/apps/audited/fcm', {
    serviceAccount: { project_id: 'audited-project', client_email: 'push@audited.iam.example', private_key: fcmKey },
  });
  await ok('DELETE', '/api/admin/apps/audited/fcm');
  await ok('PUT', '/api/admin/apps/audited/web-push', { subject: 'mailto:ops@audited.example', defaultUrl: 'https://audited.example/' });
  await ok('DELETE', '/api/admin/apps/audited/web-push');
  const { device } = await ok('POST', '/api/admin/apps/audited/devices', { endUserId: 'u1', platform: 'android', token: 'tok-audit' });
  await ok('PATCH', '/api/admin/apps/audited/end-users/u1', { tester: true });
  await ok('DELETE', `/api/admin/apps/audited/devices/${device.id}`);
  await ok('POST', '/api/admin/apps/audited/releases', { version: 1, templates: [{ slug: 'hello', title: 'Hi', body: 'Hello {{name}}' }] });
  await ok('PUT', '/api/admin/apps/audited/releases/1/templates/bye', { title: 'Bye', body: 'See you' });
  await ok('DELETE', '/api/admin/apps/audited/releases/1/templates/bye');
  await ok('PATCH', '/api/admin/apps/audited/releases/1', { status: 'Live' });
  await ok('DELETE', '/api/admin/apps/audited');
  return { secrets: [created.appSecret, created.signingSecret, rotated.appSecret, key.split('\n')[1]!, fcmKey.split('\n')[1]!] };
}
