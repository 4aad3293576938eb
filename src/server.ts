import { createApp } from './app';
import type { Config } from './config/config.schema';
import { readTlsFiles } from './config/tls-files';
import type { AppContext } from './context';
import { securityHeaders, withHeaders } from './http/security-headers';
import { closeEventStreams } from './modules/console/console-events';
import { consoleServeRoutes } from './modules/console/console-page';
import { BroadcastWorker } from './modules/broadcasts/broadcasts.worker';
import { resumeThrottledSends } from './modules/notifications/throttle/throttle';
import { createDeliveryEngine } from './modules/delivery/delivery.engine';
import { createScheduler } from './modules/scheduler/scheduler.jobs';
import { scheduledSendsConsumer } from './modules/notifications/schedule/scheduled-sends.consumer';
import { scheduledStartsConsumer } from './modules/live-activities/scheduled-starts.consumer';
import { webhookDispatcher } from './modules/webhooks/webhooks.dispatcher';
import { idempotencyRepository } from './modules/idempotency/idempotency.repository';

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

/**
 * Starts listening with the application built from `ctx`. Called by `serve` once it may serve
 * (SQLite: the file's instance lock; PostgreSQL: its lease): recovery puts back only what no live
 * instance holds.
 */
export async function startServer(ctx: AppContext): Promise<RunningServer> {
  // Migrations ran in bootstrap; what a previous process left unfinished goes back in the queue
  // before anything listens: a failure ends the start with one message (main exits 1) instead of
  // a rejection that kills a process already serving.
  // The outbox thread keeps a SQLite connection of its own: on PostgreSQL the worker claims and
  // records inline (a claim is one statement, the server does the work).
  const outboxThread = ctx.config.database.outbox_thread && ctx.config.database.url === undefined;
  if (ctx.config.database.outbox_thread && !outboxThread) ctx.logger.info('PostgreSQL: deliveries are claimed and recorded on the main thread (the outbox thread is SQLite-only)');
  const delivery = createDeliveryEngine(ctx, { outboxThread });
  const scheduler = createScheduler(ctx);
  // Queues every instance consumes, whether or not it sends pushes: webhook posts, scheduled sends and scheduled starts.
  const webhooks = webhookDispatcher(ctx);
  const scheduledSends = scheduledSendsConsumer(ctx);
  const scheduledStarts = scheduledStartsConsumer(ctx);
  try {
    // No request is in flight yet, so a `running` Idempotency-Key is one a stopped process left.
    // Not in createApp: `islet demo` beside a running server builds the services too.
    await ctx.coordination.instance.recover('idempotency keys', () => idempotencyRepository(ctx.db.sql).releaseAllRunning());
    await delivery.recover();
    const resumed = await ctx.coordination.instance.recover('throttled sends', () => resumeThrottledSends(ctx));
    if (resumed > 0) ctx.logger.info('throttled sends that fell behind while stopped go on at their rate from now', { count: resumed });
    await webhooks.recover();
  } catch (e) {
    await delivery.stop();
    throw new Error(`start-up recovery failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const app = createApp(ctx);
  const headers = securityHeaders(ctx.config.server.public_url);
  const fetch = async (request: Request) => withHeaders(await app.fetch(request), headers);
  let origin = '';
  const routes = Object.fromEntries(
    Object.entries(consoleServeRoutes(fetch, () => origin)).map(([path, route]) => [
      path,
      typeof route === 'function' ? async (request: Request) => withHeaders(await route(request), headers) : route,
    ]),
  );
  const serve = (port: number) => {
    const tls = readTlsFiles(ctx.config.server);
    return listen(ctx.config.server, () =>
      Bun.serve({
        hostname: ctx.config.server.host,
        port,
        // Bun answers a body over this cap with a bare 413 of its own, so it is set far above
        // [server] max_body_bytes: the app refuses declared lengths, and counts chunked bodies as it
        // reads them, answering 413 in problem JSON (src/http/body.ts). Nothing over the limit is buffered.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
        // A second server on a taken port must fail, not share it with this one (SO_REUSEPORT).
        // With TLS the port is shared for a moment on purpose: a certificate reload starts the next
        // listener before the old one stops (Bun's server.reload ignores `tls`); on SQLite the
        // instance lock still keeps a second server off the same file.
        reusePort: Boolean(tls),
        // Bundle the console once and serve it minified, not in Bun's watch-and-reload mode.
        development: false,
        routes,
        fetch,
        ...(tls ? { tls } : {}),
      }),
    );
  };
  let server = serve(ctx.config.server.port);
  origin = selfOrigin(server);
  // Lets handlers see the client's address (the throttles, the audit log); Elysia sets this in listen().
  app.server = server;
  // Broadcasts (channels, channel sends, topic messages) go over the same transports and connections.
  const broadcasts = new BroadcastWorker(ctx, delivery.transports);
  // An API-only instance ([delivery] worker = false) queues; the other instances send.
  if (ctx.config.delivery.worker) {
    delivery.start();
    broadcasts.start();
  } else ctx.logger.info('[delivery] worker = false: this instance sends no pushes or broadcasts; other instances on this PostgreSQL send what it queues');
  scheduler.start();
  webhooks.start();
  scheduledSends.start();
  scheduledStarts.start();
  let stopping: Promise<void> | undefined;
  return {
    url: server.url.toString().replace(/\/$/, ''),
    port: server.port ?? ctx.config.server.port,
    async reloadTls() {
      if (!readTlsFiles(ctx.config.server) || stopping) return;
      const next = serve(server.port!);
      const previous = server;
      server = next;
      app.server = next;
      await previous.stop(false);
    },
    stop() {
      stopping ??= (async () => {
        closeEventStreams(ctx.coordination.wakeUps);
        await server.stop(false);
        await scheduler.stop();
        // Another instance takes the scheduler over at its next try, not once this lock's session ends.
        await ctx.coordination.leadership.release();
        await scheduledSends.stop();
        await scheduledStarts.stop();
        await webhooks.stop();
        await broadcasts.stop();
        await delivery.stop();
        await ctx.db.close();
      })();
      return stopping;
    },
  };
}

/**
 * How this process reaches its own listener: its URL (http or https), a wildcard address replaced
 * by loopback.
 */
function selfOrigin(server: { url: URL }): string {
  const url = new URL(server.url);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/**
 * Binds `[server] host:port` for a moment and lets it go: `serve` runs this before it creates the
 * database, the key file or an admin token, so a taken port leaves nothing half-made behind. (Port
 * 0 is always free.) The real listener binds after migrations; should another process take the
 * port in between, `listen` still refuses with the same message.
 */
export function checkPortFree(server: Config['server']): void {
  if (server.port === 0) return;
  // No SO_REUSEPORT: a TLS server of another islet, which shares its port, counts as taken too.
  const probe = listen(server, () => Bun.serve({ hostname: server.host, port: server.port, reusePort: false, fetch: () => new Response(null, { status: 503 }) }));
  probe.stop(true);
}

/**
 * Runs Bun.serve, turning "the port is taken" into a message that says so, and any other refusal
 * to bind (an address not on this machine: EADDRNOTAVAIL) into one naming the address (main exits 1).
 */
function listen<T>(server: Config['server'], serve: () => T): T {
  try {
    return serve();
  } catch (e) {
    const error = e as { code?: string; message?: string; syscall?: string };
    const where = `cannot listen on ${server.host}:${server.port}`;
    if (error.code === 'EADDRINUSE' || /in use/i.test(error.message ?? '')) throw new Error(`${where}: the port is already in use (is another islet serve running?)`);
    if (error.syscall === 'listen') throw new Error(`${where}: ${error.message}`);
    throw e;
  }
}
