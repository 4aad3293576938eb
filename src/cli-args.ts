import { ConfigError } from './config/config.load';

/** What `islet --help` prints, and what a command missing its argument is told. */
export const USAGE = `Usage: islet <command> [--config FILE]
       islet --version | -v    islet --help | -h

Commands:
  serve          migrate the database, then serve the API, console and docs (default)
  migrate        apply database migrations and exit
  check-config   validate the configuration as serve does and print it with secrets redacted;
                 with [database] url, connect to PostgreSQL and say what is wrong
  version        print the version and the commit it was built from
  healthcheck    exit 0 when the local server answers /readyz (for container health checks)
  backup FILE    write a consistent copy of the database to FILE, also while the server runs
  restore FILE   replace the database with the backup FILE (the server must be stopped)
                 (with [database] url both print the pg_dump / pg_restore command to use instead)
  migrate-to-postgres [--to URL]
                 copy the SQLite database into an empty PostgreSQL database (URL, else [database] url),
                 all or nothing, and verify every table's row count (the server must be stopped)
  admin-token reset
                 print a new admin token; the old one stops working, also on a running server
  demo           create the demo app (end users demo-user and demo-friend, simulated devices, a Live
                 release, a running Live Activity) that the API docs' examples use; also while serving

The configuration is read from --config FILE, else $ISLET_CONFIG, else ./islet.toml when present,
else built-in defaults. ISLET_<SECTION>_<KEY> environment variables override keys.`;

/** How many arguments each command takes after its name. */
const ARITY: Record<string, number> = { backup: 1, restore: 1, 'admin-token': 1 };

/**
 * The command, its arguments and the options of a command line (`serve` when none is named);
 * `--help` and `--version` win over the rest. A ConfigError for a missing or extra argument.
 * @example parseArgs(['backup', 'out.db', '--config', 'islet.toml']) // { command: 'backup', args: ['out.db'], configFlag: 'islet.toml', to: undefined }
 */
export function parseArgs(argv: string[]): { command: string; args: string[]; configFlag?: string; to?: string } {
  let command = 'serve';
  let configFlag: string | undefined;
  let to: string | undefined;
  let sawCommand = false;
  // `--help` and `--version` answer whatever else the line holds (`islet backup --help`).
  let flag: 'help' | 'version' | undefined;
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config' || arg === '-c') configFlag = argv[++i];
    else if (arg.startsWith('--config=')) configFlag = arg.slice('--config='.length);
    else if (arg === '--to') to = argv[++i];
    else if (arg.startsWith('--to=')) to = arg.slice('--to='.length);
    else if (arg === '--help' || arg === '-h') flag = 'help';
    else if (arg === '--version' || arg === '-v') flag = 'version';
    else if (!sawCommand) {
      command = arg;
      sawCommand = true;
    } else if (args.length < (ARITY[command] ?? 0)) args.push(arg);
    else throw new ConfigError([`unexpected argument "${arg}"`]);
  }
  if (flag) return { command: flag, args: [] };
  if (command in ARITY && args.length < ARITY[command]!) throw new ConfigError([`${command} needs ${command === 'admin-token' ? '"reset"' : 'a FILE'}\n\n${USAGE}`]);
  if (to !== undefined && command !== 'migrate-to-postgres') throw new ConfigError([`--to is an option of migrate-to-postgres only`]);
  return { command, args, configFlag, to };
}
