// npm run fuzz [-- --requests N --seed S --concurrency C]: drives a real server process with
// property-based and raw-socket cases (scripts/fuzz/*), then prints one JSON line. Exits 1 when
// any answer was ≥ 500, a request got no answer, or the server did not survive.
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz/run';

const { values } = parseArgs({ options: { requests: { type: 'string' }, seed: { type: 'string' }, concurrency: { type: 'string' } } });
const report = await runFuzz({
  requests: Number(values.requests ?? 10_500),
  seed: values.seed === undefined ? undefined : Number(values.seed),
  concurrency: values.concurrency === undefined ? undefined : Number(values.concurrency),
});
console.log(JSON.stringify(report));
process.exit(report.status5xx === 0 && report.timeouts === 0 && report.aliveAfter ? 0 : 1);
