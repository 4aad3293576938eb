#!/usr/bin/env bun
/**
 * `npm run chaos`: failure scenarios against a real server process (`bun src/main.ts serve`) and
 * the APNs stand-in in its own process, each on a fresh copy of a seeded database. Prints one JSON
 * line per scenario on stdout: {scenario, accepted, delivered, lost, failed, duplicates,
 * drainSeconds, …}; progress and a summary go to stderr. Not part of `npm test` (a short version of
 * the outage and fault scenarios is: scripts/chaos/chaos.test.ts).
 *   npm run chaos [-- --only outage,faults] [--devices 100000] [--outage-s 180] [--kills 20]
 *                 [--fault-rate 0.1] [--seed 1]
 * Several instances on one PostgreSQL (scripts/chaos/cluster-*.ts; `instances` in each line):
 *   npm run chaos -- --instances 3 --database postgres [--only cluster-kill,cluster-leader,cluster-pg-restart,cluster-wakeup]
 *                 [--devices 100000] [--kill-every-s 20] [--restart-after-s 3] [--lease-s N] [--pg-down-s 3] [--wakeups 200]
 */
import { parseArgs } from 'node:util';
import { diskFullScenario, sigtermScenario } from './chaos/api-scenarios';
import { faultsScenario, killScenario, outageScenario } from './chaos/fanout-scenarios';
import { createClusterFleet, type ClusterFleet } from './chaos/cluster-fleet';
import { clusterLeaderScenario, clusterWakeupScenario } from './chaos/cluster-leader';
import { clusterKillScenario, clusterPgRestartScenario } from './chaos/cluster-scenarios';
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
    instances: { type: 'string', default: '1' },
    database: { type: 'string', default: 'sqlite' },
    'kill-every-s': { type: 'string', default: '20' },
    'restart-after-s': { type: 'string', default: '3' },
    'lease-s': { type: 'string' },
    'pg-down-s': { type: 'string', default: '3' },
    wakeups: { type: 'string', default: '200' },
  },
});
const devices = Number(values.devices);
if (values.database !== 'sqlite' && values.database !== 'postgres') throw new Error(`--database must be sqlite or postgres, not ${values.database}`);
const cluster = values.database === 'postgres';
const instances = Number(values.instances);

// One PostgreSQL with the seeded fleet for every cluster scenario; each runs on a fresh copy.
let clusterFleet: Promise<ClusterFleet> | undefined;
const onCluster = (scenario: (cf: ClusterFleet) => Promise<ScenarioResult>) => async () => {
  clusterFleet ??= createClusterFleet(devices, { instances, leaseS: values['lease-s'] === undefined ? undefined : Number(values['lease-s']) });
  return scenario(await clusterFleet);
};
const CLUSTER_SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  'cluster-kill': onCluster((cf) => clusterKillScenario(cf, { instances, killEveryS: Number(values['kill-every-s']), restartAfterS: Number(values['restart-after-s']) })),
  'cluster-leader': onCluster((cf) => clusterLeaderScenario(cf, { instances })),
  'cluster-pg-restart': onCluster((cf) => clusterPgRestartScenario(cf, { instances, afterS: 2, downS: Number(values['pg-down-s']) })),
  'cluster-wakeup': onCluster((cf) => clusterWakeupScenario(cf, { instances, sends: Number(values.wakeups) })),
};

const SINGLE_SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  'kill-9': () => killScenario({ devices, kills: Number(values.kills), intervalMs: Number(values['kill-interval-ms']) }),
  outage: () => outageScenario({ devices, outageS: Number(values['outage-s']) }),
  faults: () => faultsScenario({ devices, rate: Number(values['fault-rate']), seed: Number(values.seed) }),
  sigterm: () => sigtermScenario({ devices: Math.min(devices, 20_000), clients: 20, afterMs: 3000 }),
  'disk-full': () => diskFullScenario(),
};
const SCENARIOS = cluster ? CLUSTER_SCENARIOS : SINGLE_SCENARIOS;

const chosen = values.only ? values.only.split(',') : Object.keys(SCENARIOS);
for (const name of chosen) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);

let bad = 0;
for (const name of chosen) {
  const started = performance.now();
  console.error(`▶ ${name}`);
  try {
    const result = await SCENARIOS[name]!();
    console.log(JSON.stringify(result));
    // Cluster scenarios also say which of their targets they met (fields named …Within…/…Under…).
    const missed = Object.keys(result).filter((k) => /Within|Under/.test(k) && result[k] === false);
    const ok = result.lost === 0 && (name === 'disk-full' || result.failed === 0) && missed.length === 0;
    if (!ok) bad++;
    console.error(`  ${ok ? 'ok' : 'NOT OK'}: ${result.delivered}/${result.accepted} delivered, ${result.lost} lost, ${result.failed} failed, ${result.duplicates} duplicates, drain ${result.drainSeconds} s (${Math.round((performance.now() - started) / 1000)} s)`);
    if (missed.length) console.error(`  missed: ${missed.join(', ')}`);
    if (result.skipped) console.error(`  skipped: ${result.skipped}`);
  } catch (e) {
    bad++;
    console.log(JSON.stringify({ scenario: name, error: e instanceof Error ? e.message : String(e) }));
    console.error(`  failed: ${e instanceof Error ? e.stack : String(e)}`);
  }
}
if (clusterFleet) await (await clusterFleet).close();
process.exit(bad === 0 ? 0 : 1);
