/** Helpers shared by the live activity tests: connect end users, start activities, read the outbox. */
import { createHmac } from 'node:crypto';
import { apnsToken } from './apns-standin';
import type { AppContext } from '../context';
import type { Harness, TestResponse } from './harness';
import { testRows } from './test-sql';

export const progress = { templateSlug: 'progress-bar', attributes: { label: 'Uploading' }, contentState: { progress: '10', detail: '1 of 10' } };

export const activitiesPath = (appId: string) => `/api/apps/${appId}/live-activities`;

export const sign = (secret: string, endUserId: string) => createHmac('sha256', secret).update(endUserId).digest('hex');

/** Registers a device through the public API and returns its id. */
export async function connect(
  h: Harness<AppContext>,
  appId: string,
  endUserId: string,
  device: { platform?: 'ios' | 'android'; token?: string; pushToStartToken?: string } = {},
): Promise<string> {
  const platform = device.platform ?? 'android';
  const token = device.token ?? (platform === 'ios' ? apnsToken() : `${endUserId}-${platform}-${Math.random().toString(36).slice(2)}`);
  const res = await h.service(appId, 'POST', `/api/apps/${appId}/devices`, { endUserId, platform, token, ...(device.pushToStartToken ? { pushToStartToken: device.pushToStartToken } : {}) });
  if (res.status !== 200) throw new Error(`connect: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.device.id;
}

/** Starts activities and fails loudly unless the start succeeded. */
export async function start(h: Harness<AppContext>, appId: string, body: Record<string, unknown> = progress): Promise<TestResponse> {
  const res = await h.service(appId, 'POST', activitiesPath(appId), body);
  if (res.status !== 200) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

export interface QueuedMessage {
  kind: string;
  content: Record<string, any>;
  deliveries: { deviceId: string; status: string; reason: string | null }[];
}

/** Every queued message of an activity, oldest first, with its deliveries. */
export async function queuedFor(h: Harness<AppContext>, activityId: string): Promise<QueuedMessage[]> {
  const messages = await testRows<{ id: number; kind: string; content: string }>(h.ctx, 'SELECT id, kind, content FROM messages WHERE activity_id = ? ORDER BY id', [activityId]);
  const queued: QueuedMessage[] = [];
  for (const m of messages) {
    const deliveries = await testRows<{ deviceId: string; status: string; reason: string | null }>(
      h.ctx,
      'SELECT device_id AS "deviceId", status, reason FROM deliveries WHERE message_id = ? ORDER BY id',
      [m.id],
    );
    queued.push({ kind: m.kind, content: JSON.parse(m.content), deliveries });
  }
  return queued;
}

export const count = async (h: Harness<AppContext>, table: 'activities' | 'messages' | 'deliveries') =>
  (await testRows<{ n: number }>(h.ctx, `SELECT count(*) AS n FROM ${table}`))[0]!.n;
