import { readdirSync, readFileSync } from 'node:fs';

/** The median of the figures (the upper one of the middle two for an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** The q-quantile (0..1) of the figures, nearest rank. */
export function percentile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** x rounded to `digits` decimals. */
export const round = (x: number, digits = 0): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** CPU time (user + system, all threads) process `pid` used so far, in µs; Linux clock ticks are 10 ms. */
export function processCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * CPU time (user + system) each thread of a process used so far, in µs, by thread id, with the
 * thread's name ("main" for the main thread, "Worker" for a worker thread). Linux clock ticks are 10 ms.
 */
export function threadCpuUs(pid: number = process.pid): Map<string, { name: string; us: number }> {
  const threads = new Map<string, { name: string; us: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, { name, us: (Number(fields[11]) + Number(fields[12])) * 10_000 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

/** CPU µs per thread name used between two `threadCpuUs` readings (threads started meanwhile count from 0). */
export function threadCpuDelta(before: Map<string, { name: string; us: number }>, after: Map<string, { name: string; us: number }>): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [tid, t] of after) byName[t.name] = (byName[t.name] ?? 0) + t.us - (before.get(tid)?.us ?? 0);
  return byName;
}
