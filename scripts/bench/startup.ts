/**
 * Startup and idle memory of the compiled binary: time from launching it (fresh database) to
 * /readyz answering 200, the CPU time it used until then (all threads: a figure the machine's load
 * moves less than the wall time), and its RSS after a second of idling. Median of several runs.
 * Prints `{"startup_ms": N, "rss_idle_mb": N, "startup_cpu_ms": N}`. Without `--binary`, builds
 * dist/islet when missing. `--binary A,B`: the runs alternate between the binaries (before/after
 * pairs on a noisy machine), and every figure of B is printed with the suffix `_b`.
 *   bun scripts/bench/startup.ts [--runs 5] [--binary dist/islet[,other]]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, processCpuUs } from './stats';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, binary: { type: 'string' } } });
const RUNS = Number(values.runs);
const root = join(import.meta.dir, '..', '..');
const binaries = (values.binary ?? join(root, 'dist', 'islet')).split(',');
if (!existsSync(binaries[0]!)) Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const figures: Record<string, number> = {};
const measured = binaries.map(() => ({ startups: [] as number[], cpu: [] as number[], rss: [] as number[] }));
for (let i = 0; i < RUNS; i++) for (const [b, binary] of binaries.entries()) await measure(binary, 19100 + i * binaries.length + b, measured[b]!);
for (const [b, m] of measured.entries()) {
  const suffix = b === 0 ? '' : `_${String.fromCharCode(97 + b)}`;
  console.error(`${binaries[b]}: startup ms: ${m.startups.map((s) => s.toFixed(0)).join(', ')}; CPU ms: ${m.cpu.join(', ')}; idle RSS MB: ${m.rss.map((r) => r.toFixed(1)).join(', ')}`);
  figures[`startup_ms${suffix}`] = Math.round(median(m.startups));
  figures[`rss_idle_mb${suffix}`] = Math.round(median(m.rss) * 10) / 10;
  figures[`startup_cpu_ms${suffix}`] = median(m.cpu);
}
console.log(JSON.stringify(figures));

async function measure(binary: string, port: number, into: { startups: number[]; cpu: number[]; rss: number[] }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-startup-'));
  writeFileSync(join(dir, 'islet.toml'), `[server]\nport = ${port}\nhost = "127.0.0.1"\n[admin]\ntoken = "bench"\n[log]\nlevel = "warn"\n`);
  const started = performance.now();
  const proc = Bun.spawn([binary, 'serve'], { cwd: dir, stdout: 'ignore', stderr: 'ignore' });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200).catch(() => false);
    if (ok) break;
    if (performance.now() - started > 10_000) throw new Error('the binary did not become ready within 10 s');
    await Bun.sleep(2);
  }
  into.startups.push(performance.now() - started);
  into.cpu.push(processCpuUs(proc.pid) / 1000);
  await Bun.sleep(1000);
  into.rss.push(rssMb(proc.pid));
  proc.kill('SIGTERM');
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
}
