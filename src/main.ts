#!/usr/bin/env bun
import { writeSync } from 'node:fs';
import { bootstrap, checkConfigForServe } from './bootstrap';
import { ConfigError, loadConfig, resolveConfigPath } from './config/config.load';
import { redactConfig } from './config/config.redact';
import type { Config } from './config/config.schema';
import { migrateDatabase, openDatabase } from './db/database';
import { startServer } from './server';
import { COMMIT, VERSION } from './version';

const USAGE = `Usage: islet <command> [--config FILE]

Commands:
  serve          migrate the database, then serve the API, console and docs (default)
  migrate        apply database migrations and exit
  check-config   validate the configuration as serve does and print it with secrets redacted
  version        print the version and the commit it was built from
  healthcheck    exit 0 when the local server answers /readyz (for container health checks)

The configuration is read from --config FILE, else $ISLET_CONFIG, else ./islet.toml when present,
else built-in defaults. ISLET_<SECTION>_<KEY> environment variables override keys.`;

function parseArgs(argv: string[]): { command: string; configFlag?: string } {
  let command = 'serve';
  let configFlag: string | undefined;
  let sawCommand = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config' || arg === '-c') configFlag = argv[++i];
    else if (arg.startsWith('--config=')) configFlag = arg.slice('--config='.length);
    else if (arg === '--help' || arg === '-h') command = 'help';
    else if (!sawCommand) {
      command = arg;
      sawCommand = true;
    } else throw new ConfigError([`unexpected argument "${arg}"`]);
  }
  return { command, configFlag };
}

function readConfig(configFlag: string | undefined): Config {
  return loadConfig(resolveConfigPath(configFlag, process.env), process.env);
}

async function serve(config: Config): Promise<void> {
  const { ctx, generatedAdminToken } = bootstrap(config);
  const server = startServer(ctx);
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    ctx.logger.info('stopping', { signal });
    server.stop().then(
      () => {
        ctx.logger.info('stopped');
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const publicUrl = config.server.public_url ?? server.url;
  if (generatedAdminToken) {
    // Printed once, to the terminal only: the database keeps just its hash.
    writeSync(
      2,
      `\n  Islet is running: console at ${publicUrl}/console, API docs at ${publicUrl}/swagger\n` +
        `  Admin token (shown only now; sign in to the console with it): ${generatedAdminToken}\n` +
        `  To choose your own, set [admin] token in the config file or ISLET_ADMIN_TOKEN.\n\n`,
    );
  }
  ctx.logger.info('listening', { url: server.url, console: `${publicUrl}/console`, docs: `${publicUrl}/swagger`, config: config.source, version: VERSION });
}

/** Asks the server on this machine whether it is ready; needs no shell or curl in the image. */
async function healthcheck(config: Config): Promise<number> {
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  try {
    const res = await fetch(`http://${host}:${config.server.port}/readyz`, { signal: AbortSignal.timeout(3000) });
    console.log(res.status === 200 ? 'ready' : `not ready (HTTP ${res.status})`);
    return res.status === 200 ? 0 : 1;
  } catch (e) {
    console.log(`not ready (${e instanceof Error ? e.message : String(e)})`);
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const { command, configFlag } = parseArgs(argv);
  switch (command) {
    case 'serve':
      await serve(readConfig(configFlag));
      return -1;
    case 'migrate': {
      const config = readConfig(configFlag);
      const db = openDatabase(config.database.path);
      migrateDatabase(db);
      db.$client.close();
      console.log(`database ${config.database.path} is up to date`);
      return 0;
    }
    case 'check-config': {
      // The very checks serve runs before it starts (ConfigError exits 1 below).
      const config = readConfig(configFlag);
      checkConfigForServe(config);
      console.log(JSON.stringify(redactConfig(config), null, 2));
      return 0;
    }
    case 'healthcheck':
      return healthcheck(readConfig(configFlag));
    case 'version':
      console.log(`islet ${VERSION} (${COMMIT})`);
      return 0;
    case 'help':
      console.log(USAGE);
      return 0;
    default:
      console.error(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e) => {
    if (e instanceof ConfigError) console.error(`islet: configuration error\n  ${e.problems.join('\n  ')}`);
    else console.error(`islet: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
