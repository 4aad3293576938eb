import { relative } from 'node:path';

/**
 * How to run another command of this install, as the first start's banner names it: `islet …` for
 * the compiled binary (its own module lives under /$bunfs/), else `npx bun <path to main.ts from
 * the working directory> …` for the sources; with the `--config` the server was started with.
 * @example commandLine('/srv/islet/src/main.ts', 'admin-token reset', undefined, '/srv/islet') // 'npx bun src/main.ts admin-token reset'
 */
export function commandLine(mainPath: string, command: string, configFlag: string | undefined, cwd = process.cwd()): string {
  const program = mainPath.startsWith('/$bunfs/') ? 'islet' : `npx bun ${relative(cwd, mainPath) || mainPath}`;
  return `${program} ${command}${configFlag ? ` --config ${/\s/.test(configFlag) ? JSON.stringify(configFlag) : configFlag}` : ''}`;
}
