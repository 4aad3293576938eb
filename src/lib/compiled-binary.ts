/**
 * Whether this process is the `bun build --compile` executable (scripts/build.ts), whose embedded
 * files live under /$bunfs/root. Read from Bun.main, the running entry point: with --bytecode the
 * bundle keeps each module's build-time source path in import.meta.path and import.meta.dir, so
 * those name the build machine's checkout, which a container or another host does not have.
 */
export function inCompiledBinary(): boolean {
  return Bun.main.startsWith('/$bunfs/');
}
