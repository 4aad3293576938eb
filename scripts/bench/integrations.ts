/**
 * What the integrations of issue 19 cost, in-process (real SQLite file, fake clock, no network
 * but a local receiver), each next to its baseline in the same run:
 *  - a Live Activity start to N Android users with and without a webhook endpoint listening
 *    (one `live_activity.started` event per activity, written in the start's transaction);
 *  - a start with and without an Idempotency-Key, and the replay of a key;
 *  - the webhook dispatcher: signed events posted to a local receiver, per second.
 * Prints the medians as one JSON line.
 *   bun scripts/bench/integrations.ts [--runs 3] [--users 2000] [--requests 300] [--events 2000]
 */
import { parseArgs } from 'node:util';
import { silentLogger } from '../../src/lib/logger';
import { webhookDispatcher } from '../../src/modules/webhooks/webhooks.dispatcher';
import { createHarness, type Harness } from '../../src/test-support/harness';
import { median, round } from './stats';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, users: { type: 'string', default: '2000' }, requests: { type: 'string', default: '300' }, events: { type: 'string', default: '2000' } },
});
const RUNS = Number(values.runs);
const USERS = Number(values.users);
const REQUESTS = Number(values.requests);
const EVENTS = Number(values.events);
const start = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } };

const receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status: 204 }) });
const receiverUrl = `http://127.0.0.1:${receiver.port}/hooks`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function withHarness<T>(fn: (h: Harness) => Promise<T>): Promise<T> {
  const h = await createHarness({ logger: silentLogger });
  try {
    return await fn(h);
  } finally {
    h.close();
  }
}

/** A start to USERS connected Android users; with an endpoint listening, one event per activity. */
const fanout = (webhook: boolean) =>
  withHarness(async (h) => {
    const { id, appSecret } = await h.createApp({ id: 'bench' });
    for (let i = 0; i < USERS; i += 100) {
      const batch = Array.from({ length: Math.min(100, USERS - i) }, (_, j) =>
        h.request('POST', `/api/apps/${id}/devices`, { body: { endUserId: `user-${i + j}`, platform: 'android', token: `tok-${i + j}` }, headers: { 'x-service-key': appSecret } }),
      );
      await Promise.all(batch);
    }
    if (webhook) await h.admin('POST', `/api/admin/apps/${id}/webhooks`, { url: receiverUrl, events: ['live_activity.started'] });
    const ms = await timed(async () => {
      const res = await h.request('POST', `/api/apps/${id}/live-activities`, { body: start, headers: { 'x-service-key': appSecret } });
      if (res.status !== 200) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
    });
    return ms;
  });

/** REQUESTS sequential starts to one user, each with its own key or none; then one replay. */
const keyed = (withKey: boolean) =>
  withHarness(async (h) => {
    const { id, appSecret } = await h.createApp({ id: 'bench' });
    await h.request('POST', `/api/apps/${id}/devices`, { body: { endUserId: 'u', platform: 'android', token: 'tok-u' }, headers: { 'x-service-key': appSecret } });
    const send = (key?: string) =>
      h.request('POST', `/api/apps/${id}/live-activities`, { body: start, headers: { 'x-service-key': appSecret, ...(key ? { 'idempotency-key': key } : {}) } });
    const ms = await timed(async () => {
      for (let i = 0; i < REQUESTS; i++) await send(withKey ? `k-${i}` : undefined);
    });
    const replayMs = withKey ? await timed(() => send('k-0')) : 0;
    return { perRequestMs: ms / REQUESTS, replayMs };
  });

/** EVENTS test events to one endpoint, posted by the dispatcher to the local receiver. */
const dispatch = () =>
  withHarness(async (h) => {
    const { id } = await h.createApp({ id: 'bench' });
    const endpoint = (await h.admin('POST', `/api/admin/apps/${id}/webhooks`, { url: receiverUrl })).body.id;
    for (let i = 0; i < EVENTS; i++) await h.admin('POST', `/api/admin/apps/${id}/webhooks/${endpoint}/test`);
    const job = webhookDispatcher(h.ctx);
    const ms = await timed(() => job.drain());
    const delivered = h.ctx.db.sqlite.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`).get()!.n;
    if (delivered !== EVENTS) throw new Error(`dispatcher delivered ${delivered} of ${EVENTS}`);
    return (EVENTS / ms) * 1000;
  });

const figures: Record<string, number[]> = {};
const add = (key: string, value: number) => (figures[key] ??= []).push(value);
for (let run = 0; run < RUNS; run++) {
  add('start_fanout_ms', await fanout(false));
  add('start_fanout_webhooks_ms', await fanout(true));
  const plain = await keyed(false);
  const withKey = await keyed(true);
  add('start_ms', plain.perRequestMs);
  add('start_idempotency_key_ms', withKey.perRequestMs);
  add('idempotent_replay_ms', withKey.replayMs);
  add('webhook_events_per_s', await dispatch());
}
receiver.stop(true);
const result = Object.fromEntries(Object.entries(figures).map(([k, xs]) => [k, round(median(xs), 2)]));
console.error(
  `start to ${USERS} users: ${result.start_fanout_ms} ms, with a webhook endpoint listening ${result.start_fanout_webhooks_ms} ms\n` +
    `start (1 user): ${result.start_ms} ms, with an Idempotency-Key ${result.start_idempotency_key_ms} ms, replay ${result.idempotent_replay_ms} ms\n` +
    `webhook dispatcher: ${result.webhook_events_per_s} events/s to a local receiver`,
);
console.log(JSON.stringify({ users: USERS, requests: REQUESTS, events: EVENTS, ...result }));
