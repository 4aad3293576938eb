import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { createLogger } from '../../lib/logger';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { until } from '../../test-support/eventually';
import { LEADER_LOCK_KEY, pgLeadership, type PgLeadership } from './leadership';

/** Short intervals keep the test quick; the waits below are generous bounds, not timings. */
const TIMINGS = { retryMs: 200, verifyMs: 100, answerMs: 3_000 };
const WAIT = { timeoutMs: 15_000 };

const made: PgLeadership[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((l) => l.release()));
});

async function two() {
  const { url } = await testDatabase();
  const lines: string[] = [];
  const logger = createLogger('info', (line) => void lines.push(line));
  const settings = { url, poolSize: 2 };
  const a = pgLeadership(settings, 'a', logger, TIMINGS);
  const b = pgLeadership(settings, 'b', logger, TIMINGS);
  made.push(a, b);
  await a.isLeader();
  await until('a leads', () => a.current(), WAIT);
  await b.isLeader();
  return { a, b, url, lines };
}

/** The session holding the leader lock, as PostgreSQL sees it. */
async function holderPid(url: string): Promise<number | undefined> {
  const sql = new SQL(url, { max: 1 });
  try {
    const rows = await sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
                            AND ((classid::bigint << 32) | objid::bigint) = ${LEADER_LOCK_KEY}`;
    return rows[0] ? Number(rows[0].pid) : undefined;
  } finally {
    await sql.close();
  }
}

/** A TCP relay to PostgreSQL that can go silent, as a vanished network path does: nothing is closed. */
async function silenceableRelay(url: string): Promise<{ url: string; silence(): void; close(): void }> {
  const target = new URL(url);
  const sockets: Socket[] = [];
  let silent = false;
  const server: Server = createServer((client) => {
    const upstream = createConnection(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (d) => void (silent || upstream.write(d)));
    upstream.on('data', (d) => void (silent || client.write(d)));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    silence: () => void (silent = true),
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe('scheduler leadership on PostgreSQL', () => {
  beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

  test('two instances: exactly one leads, and it holds the lock', async () => {
    const { a, b, url } = await two();
    // Several of b's tries go by: it stays a follower while a holds the lock.
    await Bun.sleep(TIMINGS.retryMs * 4);
    expect([a.current(), b.current()]).toEqual([true, false]);
    expect(await b.isLeader()).toBe(false);
    expect(await holderPid(url)).toBe(a.backendPid()!);
  }, 30_000);

  test("the leader's connection killed: the other leads, the old one answers not-leader, logged once each", async () => {
    const { a, b, url, lines } = await two();
    const admin = new SQL(url, { max: 1 });
    try {
      await admin`SELECT pg_terminate_backend(${a.backendPid()!})`;
    } finally {
      await admin.close();
    }
    await until('b leads', () => b.current(), WAIT);
    expect(a.current()).toBe(false);
    expect(await a.isLeader()).toBe(false);
    // a tries again (a new session) and stays a follower while b leads.
    await Bun.sleep(TIMINGS.retryMs * 4);
    expect([a.current(), b.current()]).toEqual([false, true]);
    expect(await holderPid(url)).toBe(b.backendPid()!);
    const said = (msg: string, instance: string) => lines.filter((l) => JSON.parse(l).msg === msg && JSON.parse(l).instance === instance).length;
    expect([said('became scheduler leader', 'a'), said('lost scheduler leadership', 'a'), said('became scheduler leader', 'b')]).toEqual([1, 1, 1]);
  }, 30_000);

  test('release gives the lock back at once: the other takes over', async () => {
    const { a, b, url } = await two();
    await a.release();
    expect(a.current()).toBe(false);
    await until('b leads', () => b.current(), WAIT);
    expect(await holderPid(url)).toBe(b.backendPid()!);
  }, 30_000);

  test('the network path goes silent (nothing closed): the leader stops leading after one unanswered check', async () => {
    const { url } = await testDatabase();
    const relay = await silenceableRelay(url);
    const lines: string[] = [];
    const a = pgLeadership({ url: relay.url, poolSize: 1 }, 'a', createLogger('info', (line) => void lines.push(line)), { ...TIMINGS, answerMs: 1_000 });
    made.push(a);
    try {
      await a.isLeader();
      await until('a leads', () => a.current(), WAIT);
      relay.silence();
      await until('a stops leading', () => !a.current(), WAIT);
      expect(lines.map((l) => JSON.parse(l).reason).filter(Boolean)).toEqual(['no answer from PostgreSQL within 1000 ms']);
    } finally {
      relay.close();
    }
  }, 30_000);

  test('PostgreSQL restarted: nobody leads while it is down, then one leads again', async () => {
    const server = await sharedPostgres();
    const { a, b } = await two();
    await server.pause();
    try {
      await until('a stops leading', () => !a.current(), WAIT);
      expect(b.current()).toBe(false);
    } finally {
      await server.resume();
    }
    await until('one leads again', () => a.current() || b.current(), WAIT);
    await Bun.sleep(TIMINGS.retryMs * 4);
    expect([a.current(), b.current()].filter(Boolean)).toHaveLength(1);
  }, 60_000);
});
