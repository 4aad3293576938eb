/** Helpers shared by the live activity tests: connect end users, start activities, read the outbox. */
import { createHmac } from 'node:crypto';
import { apnsToken } from './apns-standin';
import type { Harness, TestResponse } from './harness';

export const progress = { templateSlug: 'progress-bar', attributes: { label: 'Uploading' }, contentState: { progress: '10', detail: '1 of 10' } };

export const activitiesPath = (appId: string) => `/api/apps/${appId}/live-activities`;

export const sign = (secret: string, endUserId: string) => createHmac('sha256', secret).update(endUserId).digest('hex');

/** Registers a device through the public API and returns its id. */
export async function connect(
  h: Harness,
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
export async function start(h: Harness, appId: string, body: Record<string, unknown> = progress): Promise<TestResponse> {
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
export function queuedFor(h: Harness, activityId: string): QueuedMessage[] {
  const db = h.ctx.db.sqlite.$client;
  return db
    .query<{ id: number; kind: string; content: string }, [string]>('SELECT id, kind, content FROM messages WHERE activity_id = ? ORDER BY id')
    .all(activityId)
    .map((m) => ({
      kind: m.kind,
      content: JSON.parse(m.content),
      deliveries: db
        .query<{ deviceId: string; status: string; reason: string | null }, [number]>(
          'SELECT device_id AS deviceId, status, reason FROM deliveries WHERE message_id = ? ORDER BY id',
        )
        .all(m.id),
    }));
}

export const count = (h: Harness, table: 'activities' | 'messages' | 'deliveries') =>
  h.ctx.db.sqlite.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
