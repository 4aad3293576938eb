#!/usr/bin/env bun
/**
 * `npm run chaos`: failure scenarios against a real server process (`bun src/main.ts serve`) and
 * the APNs stand-in in its own process, each on a fresh copy of a seeded database. Prints one JSON
 * line per scenario on stdout: {scenario, accepted, delivered, lost, failed, duplicates,
 * drainSeconds, …}; progress and a summary go to stderr. Not part of `npm test` (a short version of
 * the outage and fault scenarios is: scripts/chaos/chaos.test.ts).
 *   npm run chaos [-- --only outage,faults] [--devices 100000] [--outage-s 180] [--kills 20]
 *                 [--fault-rate 0.1] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { diskFullScenario, sigtermScenario } from './chaos/api-scenarios';
import { faultsScenario, killScenario, outageScenario } from './chaos/fanout-scenarios';
import type { ScenarioResult } from './chaos/fleet';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    devices: { type: 'string', default: '100000' },
    'outage-s': { type: 'string', default: '180' },
    kills: { type: 'string', default: '20' },
    'kill-interval-ms': { type: 'string', default: '300' },
    'fault-rate': { type: 'string', default: '0.1' },
    seed: { type: 'string', default: '1' },
  },
});
const devices = Number(values.devices);

const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  'kill-9': () => killScenario({ devices, kills: Number(values.kills), intervalMs: Number(values['kill-interval-ms']) }),
  outage: () => outageScenario({ devices, outageS: Number(values['outage-s']) }),
  faults: () => faultsScenario({ devices, rate: Number(values['fault-rate']), seed: Number(values.seed) }),
  sigterm: () => sigtermScenario({ devices: Math.min(devices, 20_000), clients: 20, afterMs: 3000 }),
  'disk-full': () => diskFullScenario(),
};

const chosen = values.only ? values.only.split(',') : Object.keys(SCENARIOS);
for (const name of chosen) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);

let bad = 0;
for (const name of chosen) {
  const started = performance.now();
  console.error(`▶ ${name}`);
  try {
    const result = await SCENARIOS[name]!();
    console.log(JSON.stringify(result));
    const ok = result.lost === 0 && (name === 'disk-full' || result.failed === 0);
    if (!ok) bad++;
    console.error(`  ${ok ? 'ok' : 'NOT OK'}: ${result.delivered}/${result.accepted} delivered, ${result.lost} lost, ${result.failed} failed, ${result.duplicates} duplicates, drain ${result.drainSeconds} s (${Math.round((performance.now() - started) / 1000)} s)`);
  } catch (e) {
    bad++;
    console.log(JSON.stringify({ scenario: name, error: e instanceof Error ? e.message : String(e) }));
    console.error(`  failed: ${e instanceof Error ? e.stack : String(e)}`);
  }
}
process.exit(bad === 0 ? 0 : 1);
