import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { consoleSessions } from '../../modules/auth/console-sessions';
import { FakeClock } from '../../lib/clock';
import { sha256Hex } from '../../lib/secrets';
import { clusterPair } from '../../test-support/cluster-pair';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import { pgSessionStore } from './sessions';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function twoInstances() {
  const pair = await clusterPair();
  close = pair.close;
  const clock = new FakeClock();
  return { clock, pair, onA: consoleSessions(clock, pgSessionStore(pair.a)), onB: consoleSessions(clock, pgSessionStore(pair.b)) };
}

describe('console sessions on PostgreSQL', () => {
  test(
    'signed in on A is valid on B at once; signed out on A is refused on B at once',
    async () => {
      const { onA, onB } = await twoInstances();
      const { id, session } = await onA.create('token-hash');
      expect(await onB.find(id, 'token-hash')).toEqual(session);
      await onA.destroy(id);
      expect(await onB.find(id, 'token-hash')).toBeUndefined();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a reset admin token ends the session on every instance, and the table holds the hash of the id, never the id',
    async () => {
      const { onA, onB, pair } = await twoInstances();
      const { id } = await onA.create('old-token-hash');
      const rows = await pair.a.sql`SELECT id_hash FROM console_sessions`;
      expect(rows.map((r: { id_hash: string }) => r.id_hash)).toEqual([sha256Hex(id)]);
      expect(await onB.find(id, 'new-token-hash')).toBeUndefined();
      expect(await onA.find(id, 'old-token-hash')).toBeUndefined();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'an expired session is refused, and expired rows are deleted at the next sign-in',
    async () => {
      const { onA, onB, clock, pair } = await twoInstances();
      const { id } = await onA.create('h');
      clock.advance(onA.lifetimeMs + 1);
      expect(await onB.find(id, 'h')).toBeUndefined();
      const old = await onA.create('h');
      await onA.create('h');
      clock.advance(onA.lifetimeMs + 1);
      await onB.create('h');
      const [{ n }] = await pair.b.sql`SELECT count(*)::int AS n FROM console_sessions`;
      expect(n).toBe(1);
      expect(await onA.find(old.id, 'h')).toBeUndefined();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
