#!/usr/bin/env bun
import { writeSync } from 'node:fs';
import { bootstrap, checkConfigForServe } from './bootstrap';
import { ConfigError, loadConfig, resolveConfigPath } from './config/config.load';
import { redactConfig } from './config/config.redact';
import type { Config } from './config/config.schema';
import { describeDatabase, migrateStore, openStore } from './db/open';
import { coordinationFor } from './coordination/choose';
import { notifyInstances } from './coordination/postgres/notifications';
import { postgresSettings } from './db/postgres/connection';
import { diagnosePostgres } from './db/postgres/diagnose';
import { postgresBackupAdvice } from './db/postgres/backup-advice';
import { formatCopyReport, migrateToPostgres } from './db/migrate-to-postgres';
import { masterKeyFile } from './config/master-key';
import { databaseUrlProblem } from './config/database-url';
import { systemClock } from './lib/clock';
import { silentLogger } from './lib/logger';
import { markAdminTokenShown, resetAdminToken } from './modules/auth/admin-auth';
import { auditService } from './modules/audit/audit.service';
import { createDemo } from './modules/apps/demo.service';
import { backupDatabase, restoreDatabase } from './db/sqlite/backup';
import { buildServices } from './services';
import { checkPortFree, startServer, type RunningServer } from './server';
import { COMMIT, VERSION } from './version';
import { parseArgs, USAGE } from './cli-args';
import { metaRepository } from './modules/auth/meta.repository';
import { commandLine } from './invocation';

function readConfig(configFlag: string | undefined): Config {
  return loadConfig(resolveConfigPath(configFlag, process.env), process.env);
}

async function serve(config: Config, configFlag?: string): Promise<void> {
  // Refusals that need nothing created come first: a start that cannot serve leaves no database,
  // key file or admin token behind (the first start in an empty folder with the port taken).
  checkConfigForServe(config);
  checkPortFree(config.server);
  // Held until the process ends. SQLite: restore refuses meanwhile, and a second server on the file
  // cannot start. PostgreSQL: this instance's lease, beside those of the other instances.
  const coordination = coordinationFor(config);
  const lock = await coordination.instance.acquire();
  if (!lock) throw new ConfigError([`another Islet server is running on ${describeDatabase(config)}`]);
  const { ctx, generatedAdminToken, replacesUnshownAdminToken } = await bootstrap(config, { coordination });
  let server: RunningServer;
  try {
    server = await startServer(ctx);
  } catch (e) {
    if (!generatedAdminToken) throw e;
    // The token stays unshown in the database: the next start replaces it and prints that one.
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`${reason}\n  The admin token this start generated was not shown: the next start that serves prints a new one.`);
  }
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    ctx.logger.info('stopping', { signal });
    server
      .stop()
      .then(async () => {
        await lock.release();
        await coordination.close();
        ctx.logger.info('stopped');
        process.exit(0);
      })
      .catch(() => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // After a certificate renewal: `systemctl reload islet` / `kill -HUP <pid>` / `podman kill -s HUP islet`.
  process.on('SIGHUP', () => {
    if (!config.server.tls_cert) return ctx.logger.info('SIGHUP ignored: no [server] tls_cert to reload');
    server.reloadTls().then(
      () => ctx.logger.info('TLS certificate reloaded', { cert: config.server.tls_cert }),
      (e) => ctx.logger.error('TLS certificate reload failed; still serving the previous one', { error: e instanceof Error ? e.message : String(e) }),
    );
  });

  const publicUrl = config.server.public_url ?? server.url.replace('://0.0.0.0:', '://localhost:').replace('://[::]:', '://localhost:');
  if (generatedAdminToken) {
    // Printed once, to the terminal only: the database keeps just its hash.
    writeSync(
      2,
      `\n  Islet is running: console at ${publicUrl}/console, API docs at ${publicUrl}/swagger\n` +
        (replacesUnshownAdminToken ? `  An earlier start generated an admin token but stopped before showing it; this one replaces it.\n` : '') +
        `  Admin token (shown only now; sign in to the console with it): ${generatedAdminToken}\n` +
        `  Lost it? \`${commandLine(Bun.main, 'admin-token reset', configFlag)}\` prints a new one.\n` +
        `  To choose your own, set [admin] token in the config file or ISLET_ADMIN_TOKEN.\n\n`,
    );
    await markAdminTokenShown(metaRepository(ctx.db.sql), generatedAdminToken);
  }
  ctx.logger.info('listening', {
    url: server.url,
    publicUrl,
    tls: Boolean(config.server.tls_cert),
    console: `${publicUrl}/console`,
    docs: `${publicUrl}/swagger`,
    config: config.source,
    version: VERSION,
  });
}

/** Asks the server on this machine whether it is ready; needs no shell or curl in the image. */
async function healthcheck(config: Config): Promise<number> {
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host;
  try {
    // Over TLS the certificate names the public host, not this address: only liveness is asked here.
    const scheme = config.server.tls_cert ? 'https' : 'http';
    const res = await fetch(`${scheme}://${host}:${config.server.port}/readyz`, { signal: AbortSignal.timeout(3000), tls: { rejectUnauthorized: false } });
    console.log(res.status === 200 ? 'ready' : `not ready (HTTP ${res.status})`);
    return res.status === 200 ? 0 : 1;
  } catch (e) {
    console.log(`not ready (${e instanceof Error ? e.message : String(e)})`);
    return 1;
  }
}

/** `islet demo`: the console's "Create the demo app", from the command line (works beside a running server). */
async function demo(config: Config): Promise<number> {
  const { ctx, generatedAdminToken } = await bootstrap(config, { logger: silentLogger });
  try {
    const summary = await createDemo(buildServices(ctx));
    await auditService(ctx).record({ actor: 'cli', address: 'local', action: 'demo.create', appId: summary.appId, target: `apps/${summary.appId}` });
    console.log(
      [
        `Demo app "${summary.appId}" created, delivering to the simulator:`,
        `  end users     ${summary.endUsers.join(', ')} (demo-user is a tester with a simulated iPhone and Android phone)`,
        `  release       ${summary.releaseVersion} is Live (templates welcome, order-shipped)`,
        `  activity      ${summary.activityId ?? 'none'} (progress-bar, for demo-user), and the stream demo-order (status-tracker)`,
        `  App Secret    ${summary.appSecret}`,
        '',
        'API docs (/swagger): Authorize with the App Secret as X-Service-Key, then "Try it out" on any operation as shipped.',
        ...(generatedAdminToken ? [`Admin token for the console (shown only now): ${generatedAdminToken}`] : []),
      ].join('\n'),
    );
    if (generatedAdminToken) await markAdminTokenShown(metaRepository(ctx.db.sql), generatedAdminToken);
    return 0;
  } finally {
    await ctx.db.close();
    await ctx.coordination.close();
  }
}

/** `islet migrate-to-postgres [--to URL]`: the SQLite file of the configuration into PostgreSQL. */
async function moveToPostgres(config: Config, to: string | undefined): Promise<number> {
  const url = to ?? config.database.url;
  if (!url) throw new ConfigError(['migrate-to-postgres needs the PostgreSQL database to copy into: --to postgres://user:password@host:5432/islet, or [database] url (ISLET_DATABASE_URL)']);
  const problem = databaseUrlProblem(url);
  if (problem) throw new ConfigError([`${to ? '--to' : 'database.url'} ${problem}`]);
  const settings = { url, poolSize: 1, caFile: config.database.ca_file };
  let report;
  try {
    report = await migrateToPostgres(config.database.path, settings);
  } catch (e) {
    // check-config's diagnostics name the key they read; here the URL may come from --to.
    if (e instanceof ConfigError && to) throw new ConfigError(e.problems.map((p) => p.replace(/^database\.url:/, '--to:')));
    throw e;
  }
  for (const line of formatCopyReport(report)) console.log(line);
  // A key file sits beside the SQLite file, which a PostgreSQL instance elsewhere does not have.
  const key = config.security.master_key
    ? 'keep the same [security] master_key'
    : `set [security] master_key (or ISLET_SECURITY_MASTER_KEY) to the content of ${masterKeyFile(config.database.path)}`;
  console.log(`Secrets were copied still sealed: every instance serving from PostgreSQL needs the same master key: ${key}.`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const { command, args, configFlag, to } = parseArgs(argv);
  switch (command) {
    case 'serve':
      await serve(readConfig(configFlag), configFlag);
      return -1;
    case 'migrate': {
      const config = readConfig(configFlag);
      const store = openStore(config, silentLogger);
      try {
        await migrateStore(store);
      } finally {
        await store.close();
      }
      console.log(`database ${describeDatabase(config)} is up to date`);
      return 0;
    }
    case 'check-config': {
      // The very checks serve runs before it starts (ConfigError exits 1 below).
      const config = readConfig(configFlag);
      checkConfigForServe(config);
      console.log(JSON.stringify(redactConfig(config), null, 2));
      const postgres = postgresSettings(config);
      if (postgres) console.error(await diagnosePostgres(postgres));
      return 0;
    }
    case 'backup':
    case 'restore': {
      const config = readConfig(configFlag);
      const postgres = postgresSettings(config);
      if (postgres) throw new Error(postgresBackupAdvice(command, args[0]!, config, postgres));
      const lines = command === 'backup' ? backupDatabase(config, args[0]!) : restoreDatabase(config, args[0]!);
      for (const line of lines) console.log(line);
      return 0;
    }
    case 'migrate-to-postgres':
      return moveToPostgres(readConfig(configFlag), to);
    case 'admin-token': {
      if (args[0] !== 'reset') throw new ConfigError([`unknown admin-token action "${args[0]}"; use: islet admin-token reset`]);
      const config = readConfig(configFlag);
      const db = openStore(config, silentLogger);
      try {
        await migrateStore(db);
        const token = await resetAdminToken(metaRepository(db.sql), config.admin.token);
        await auditService({ db, clock: systemClock, logger: silentLogger }).record({ actor: 'cli', address: 'local', action: 'admin-token.reset', target: 'admin-token' });
        const postgres = postgresSettings(config);
        // Running instances refuse the old token at their next request anyway; this ends open console streams at once.
        if (postgres) await notifyInstances(postgres, 'admin-token-changed').catch(() => {});
        console.log(token);
        console.error('The previous admin token no longer works, nor do console sessions signed in with it.');
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'demo':
      return demo(readConfig(configFlag));
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
  (code) => code >= 0 && process.exit(code),
  (e) => {
    if (e instanceof ConfigError) console.error(`islet: configuration error\n  ${e.problems.join('\n  ')}`);
    else console.error(`islet: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
