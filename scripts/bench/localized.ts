/**
 * The localized fan-out (issue 37 part 7) next to the plain one, through a real server process and
 * the APNs stand-in in its own process: 100,000 iOS devices in 10 locales (`de-AT`, `fr-CA`,
 * `pt-BR`, … : exact tags and language fallbacks), sends of a plain template and of a template in
 * 10 localizations to all of them. Each run is a fresh server on a copy of the database: a warm-up
 * send (unmeasured), then plain, localized, localized, plain (or the reverse, every other run), so
 * neither the order nor the growing outbox favours one. For each kind: time to answer and the
 * server's CPU until then (the send's own work), drain (deliveries/s until the stand-in has every
 * push) and the server's CPU per delivery in all (all threads); then the localized/plain ratios of
 * each run's means, the target being within 10 %. Prints the medians as one JSON line.
 *   bun scripts/bench/localized.ts [--runs 5] [--binary dist/islet] [--devices 100000]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { seed } from './seed';
import { median, processCpuUs, round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, binary: { type: 'string' }, devices: { type: 'string', default: '100000' } } });
const RUNS = Number(values.runs);
const DEVICES = Number(values.devices);
const SECRET = 'sk_bench_localized';
const TIMEOUT_MS = 300_000;
/** The devices' locales: five match a localization exactly, five through their language. */
const LOCALES = ['de-AT', 'de-DE', 'fr', 'fr-CA', 'es', 'it-IT', 'pt-BR', 'ja', 'zh-Hant-TW', 'nl'];
const TAGS = ['de', 'de-AT', 'fr', 'es', 'it', 'pt-BR', 'ja', 'zh-Hant', 'nl', 'sv'];
const PLAIN = { slug: 'welcome', title: 'Hello {{ name }}', body: 'You have {{count}} new messages' };
const LOCALIZED = {
  slug: 'welcome-l10n',
  title: PLAIN.title,
  body: PLAIN.body,
  localizations: Object.fromEntries(TAGS.map((tag) => [tag, { title: `[${tag}] Hello {{ name }}`, body: `[${tag}] You have {{count}} new messages` }])),
};

const now = () => performance.timeOrigin + performance.now();

const key = apnsKey();
const standin = await startStandinProcess([key]);
const template = mkdtempSync(join(tmpdir(), 'islet-bench-localized-'));
const runDirs: string[] = [];
try {
  const config = (dir: string) => benchConfig(dir, key, standin, SECRET);
  await seed(template, config(template), { fanout: DEVICES, starts: 0 }, LOCALES);

  const results: Record<string, number>[] = [];
  for (let run = 0; run < RUNS; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'islet-bench-localized-run-'));
    runDirs.push(dir);
    cpSync(template, dir, { recursive: true });
    const result = await measure(dir, config(dir), run % 2 === 0 ? ['plain', 'localized', 'localized', 'plain'] : ['localized', 'plain', 'plain', 'localized']);
    console.error(`localized run ${run + 1}: ${JSON.stringify(result)}`);
    results.push(result);
  }
  const m = (k: string) => median(results.map((r) => r[k]!));
  const ratio = (k: string) => round(median(results.map((r) => r[`localized_${k}`]! / r[`plain_${k}`]!)), 2);
  console.log(
    JSON.stringify({
      fanout_plain_answer_ms: m('plain_answer_ms'),
      fanout_l10n_answer_ms: m('localized_answer_ms'),
      fanout_plain_answer_cpu_ms: m('plain_answer_cpu_ms'),
      fanout_l10n_answer_cpu_ms: m('localized_answer_cpu_ms'),
      fanout_plain_per_s: m('plain_per_s'),
      fanout_l10n_per_s: m('localized_per_s'),
      fanout_plain_cpu_us_per_delivery: m('plain_cpu_us_per_delivery'),
      fanout_l10n_cpu_us_per_delivery: m('localized_cpu_us_per_delivery'),
      fanout_l10n_cpu_ratio: ratio('cpu_us_per_delivery'),
      fanout_l10n_answer_ratio: ratio('answer_ms'),
      fanout_l10n_answer_cpu_ratio: ratio('answer_cpu_ms'),
      fanout_l10n_drain_ratio: round(median(results.map((r) => r.plain_per_s! / r.localized_per_s!)), 2),
    }),
  );
} finally {
  await standin.stop();
  for (const dir of [template, ...runDirs]) rmSync(dir, { recursive: true, force: true });
}

/** One fresh server on `dir`: the sends in the given order, each until the stand-in has every push; the mean of each kind. */
async function measure(dir: string, toml: string, order: ('plain' | 'localized')[]): Promise<Record<string, number>> {
  const server = await spawnServer(dir, toml, values.binary ? [values.binary] : undefined);
  try {
    const client = serverClient(() => server.url, SECRET, 'bench');
    await client.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [PLAIN, LOCALIZED] }, { authorization: 'Bearer bench' });
    // The first large send of a server costs a third more per delivery than the next (code paths compiled, heap grown,
    // the HTTP/2 connection and provider token made): one of each, unmeasured, to 1,000 users and then to everyone.
    const warm = standin.accepted();
    const warmUsers = Array.from({ length: 1_000 }, (_, i) => `user-${i}`);
    await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: LOCALIZED.slug, variables: { name: 'Ada', count: '3' }, targetUsers: warmUsers });
    await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: PLAIN.slug, variables: { name: 'Ada', count: '3' } });
    await standin.waitFor(warm + warmUsers.length + DEVICES, TIMEOUT_MS);
    const sums: Record<string, number> = {};
    const add = (key: string, value: number) => (sums[key] = (sums[key] ?? 0) + value / (order.length / 2));
    for (const kind of order) {
      const base = standin.accepted();
      const cpuBefore = processCpuUs(server.proc.pid);
      const sentAt = now();
      const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: kind === 'plain' ? PLAIN.slug : LOCALIZED.slug, variables: { name: 'Ada', count: '3' } });
      const answerMs = now() - sentAt;
      const answerCpuUs = processCpuUs(server.proc.pid) - cpuBefore;
      if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} messages, got ${JSON.stringify(sent)}`);
      const drainMs = (await standin.waitFor(base + DEVICES, TIMEOUT_MS)) - sentAt;
      add(`${kind}_answer_ms`, answerMs);
      add(`${kind}_answer_cpu_ms`, answerCpuUs / 1000);
      add(`${kind}_per_s`, DEVICES / (drainMs / 1000));
      add(`${kind}_cpu_us_per_delivery`, (processCpuUs(server.proc.pid) - cpuBefore) / DEVICES);
    }
    return Object.fromEntries(Object.entries(sums).map(([key, value]) => [key, key.endsWith('per_delivery') ? round(value, 1) : Math.round(value)]));
  } finally {
    await server.stop();
  }
}
