import { expect, test } from 'bun:test';
import { runFuzz } from './run';

// A short run of `npm run fuzz` (which sends 10,500): a few hundred generated and raw-socket
// requests against a real server process. The figures it prints are for the report, not asserted.
test('a short fuzz run gets no answer ≥ 500, every request is answered, and the server stays up', async () => {
  const report = await runFuzz({ requests: 400, seed: 15 });
  console.log(JSON.stringify(report));
  expect(report.requests).toBe(400);
  expect(report.failures).toEqual([]);
  expect(report.status5xx).toBe(0);
  expect(report.timeouts).toBe(0);
  expect(report.aliveAfter).toBe(true);
}, 60_000);
