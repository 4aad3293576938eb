import { readFileSync } from 'node:fs';
import { createApp } from './app';
import { ConfigError } from './config/config.load';
import type { AppContext } from './context';
import { BODY_LIMIT_BYTES } from './http/body';
import { consoleServeRoutes } from './modules/console/console-page';
import { createDeliveryEngine } from './modules/delivery/delivery.engine';
import { createScheduler } from './modules/scheduler/scheduler.jobs';

export interface RunningServer {
  url: string;
  port: number;
  /**
   * Re-reads `[server] tls_cert` / `tls_key` and serves new connections with them (SIGHUP).
   * Bun cannot swap the certificate of a listening server (`reload` ignores `tls`), so a new
   * listener takes the same port (SO_REUSEPORT) before the old one stops accepting and finishes
   * its requests: no connection is refused. Bad files keep the current certificate and throw.
   */
  reloadTls(): Promise<void>;
  /** Stops accepting, lets requests and pushes in flight finish, then closes the database. */
  stop(): Promise<void>;
}

/** Starts listening with the application built from `ctx`. */
export function startServer(ctx: AppContext, options: { migrationsFolder?: string } = {}): RunningServer {
  const app = createApp(ctx, options);
  const routes = consoleServeRoutes(app.fetch);
  const listen = (port: number) => {
    const tls = readTls(ctx.config.server);
    return Bun.serve({
      hostname: ctx.config.server.host,
      port,
      // Declared lengths over the limit get a 413 problem from the app; this caps chunked bodies.
      maxRequestBodySize: BODY_LIMIT_BYTES,
      // Bundle the console once and serve it minified, not in Bun's watch-and-reload mode.
      development: false,
      routes,
      fetch: app.fetch,
      // Only with TLS: the next listener of a certificate reload shares the port for a moment.
      ...(tls ? { tls, reusePort: true } : {}),
    });
  };
  let server = listen(ctx.config.server.port);
  // Lets handlers see the client's address (console sign-in throttling); Elysia sets this in listen().
  app.server = server;
  // Migrations ran in bootstrap; deliveries a previous process left unfinished go out again now.
  const delivery = createDeliveryEngine(ctx);
  delivery.start();
  const scheduler = createScheduler(ctx);
  scheduler.start();
  let stopping: Promise<void> | undefined;
  return {
    url: server.url.toString().replace(/\/$/, ''),
    port: server.port ?? ctx.config.server.port,
    async reloadTls() {
      if (!readTls(ctx.config.server) || stopping) return;
      const next = listen(server.port!);
      const previous = server;
      server = next;
      app.server = next;
      await previous.stop(false);
    },
    stop() {
      stopping ??= (async () => {
        await server.stop(false);
        await scheduler.stop();
        await delivery.stop();
        ctx.db.$client.close();
      })();
      return stopping;
    },
  };
}

/** The certificate and key of `[server] tls_cert` / `tls_key`, read now; undefined without TLS. */
function readTls(server: AppContext['config']['server']): { cert: string; key: string } | undefined {
  if (!server.tls_cert && !server.tls_key) return undefined;
  if (!server.tls_cert || !server.tls_key) throw new ConfigError(['server.tls_cert and server.tls_key must be set together']);
  const read = (key: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (e) {
      throw new ConfigError([`server.${key}: cannot read ${path} (${e instanceof Error ? e.message : String(e)})`]);
    }
  };
  return { cert: read('tls_cert', server.tls_cert), key: read('tls_key', server.tls_key) };
}
