import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether this machine lets a process mount a tmpfs in a user and mount namespace of its own (`unshare -Urm`, no root needed). */
export async function tmpfsAvailable(): Promise<boolean> {
  const proc = Bun.spawn(['unshare', '-Urm', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'], { stdout: 'ignore', stderr: 'ignore' });
  return (await proc.exited) === 0;
}

/**
 * The command that runs the server in its own mount namespace with a tmpfs of `sizeMb` on
 * `mount` (files named in `copy` are copied onto it first): for spawnServer's `command`.
 */
export function onTmpfs(mount: string, sizeMb: number, main: string, copy: string[] = []): string[] {
  const copied = copy.map((f) => ` && cp "${f}" "${mount}/"`).join('');
  const wrapper = `mount -t tmpfs -o size=${sizeMb}m tmpfs "${mount}"${copied} && exec "$0" "$@"`;
  return ['unshare', '-Urm', 'sh', '-c', wrapper, process.execPath, main];
}

/**
 * Fills the tmpfs a server process mounted (seen through its own root, /proc/<pid>/root) with a
 * file, leaving about `leaveBytes` free; returns what removes it again.
 */
export function fillTmpfs(pid: number, mount: string, leaveBytes: number): () => void {
  const inside = join(`/proc/${pid}/root`, mount);
  const free = statfsSync(inside);
  const filler = join(inside, 'filler');
  writeFileSync(filler, Buffer.alloc(Math.max(0, Number(free.bavail) * Number(free.bsize) - leaveBytes)));
  return () => rmSync(filler);
}
