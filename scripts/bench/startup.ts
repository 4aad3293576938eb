/**
 * Startup and idle memory of the compiled binary: time from launching it (fresh database) to
 * /readyz answering 200, and its RSS after a second of idling. Median of several runs.
 * Prints `{"startup_ms": N, "rss_idle_mb": N}`. Without `--binary`, builds dist/islet when missing.
 *   bun scripts/bench/startup.ts [--runs 5] [--binary dist/islet]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './stats';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, binary: { type: 'string' } } });
const RUNS = Number(values.runs);
const root = join(import.meta.dir, '..', '..');
const binary = values.binary ?? join(root, 'dist', 'islet');
if (!existsSync(binary)) Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const startups: number[] = [];
const rss: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'islet-startup-'));
  const port = 19100 + i;
  writeFileSync(join(dir, 'islet.toml'), `[server]\nport = ${port}\nhost = "127.0.0.1"\n[admin]\ntoken = "bench"\n[log]\nlevel = "warn"\n`);
  const started = performance.now();
  const proc = Bun.spawn([binary, 'serve'], { cwd: dir, stdout: 'ignore', stderr: 'ignore' });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200).catch(() => false);
    if (ok) break;
    if (performance.now() - started > 10_000) throw new Error('the binary did not become ready within 10 s');
    await Bun.sleep(2);
  }
  startups.push(performance.now() - started);
  await Bun.sleep(1000);
  rss.push(rssMb(proc.pid));
  proc.kill('SIGTERM');
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
}

console.error(`startup ms: ${startups.map((s) => s.toFixed(0)).join(', ')}; idle RSS MB: ${rss.map((r) => r.toFixed(1)).join(', ')}`);
console.log(JSON.stringify({ startup_ms: Math.round(median(startups)), rss_idle_mb: Math.round(median(rss) * 10) / 10 }));
