import { createApp } from './app';
import type { AppContext } from './context';
import { securityHeaders, withHeaders } from './http/security-headers';
import { consoleServeRoutes } from './modules/console/console-page';
import { createDeliveryEngine } from './modules/delivery/delivery.engine';
import { createScheduler } from './modules/scheduler/scheduler.jobs';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets requests and pushes in flight finish, then closes the database. */
  stop(): Promise<void>;
}

/** Starts listening with the application built from `ctx`. */
export function startServer(ctx: AppContext, options: { migrationsFolder?: string } = {}): RunningServer {
  const app = createApp(ctx, options);
  const headers = securityHeaders(ctx.config.server.public_url);
  const fetch = async (request: Request) => withHeaders(await app.fetch(request), headers);
  let origin = '';
  const routes = Object.fromEntries(
    Object.entries(consoleServeRoutes(fetch, () => origin)).map(([path, route]) => [
      path,
      typeof route === 'function' ? async (request: Request) => withHeaders(await route(request), headers) : route,
    ]),
  );
  const server = listen(ctx, () => Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    // Bun answers a body over this cap with a bare 413 of its own, so it is set far above
    // [server] max_body_bytes: the app refuses declared lengths, and counts chunked bodies as it
    // reads them, answering 413 in problem JSON (src/http/body.ts). Nothing over the limit is buffered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // A second server on a taken port must fail, not share it with this one (SO_REUSEPORT).
    reusePort: false,
    // Bundle the console once and serve it minified, not in Bun's watch-and-reload mode.
    development: false,
    routes,
    fetch,
  }));
  origin = selfOrigin(server);
  // Lets handlers see the client's address (the throttles); Elysia sets this in listen().
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

/** Runs Bun.serve, turning "the port is taken" into a message that says so (main exits non-zero). */
function listen<T>(ctx: AppContext, serve: () => T): T {
  try {
    return serve();
  } catch (e) {
    const error = e as { code?: string; message?: string };
    if (error.code === 'EADDRINUSE' || /in use/i.test(error.message ?? '')) {
      const { host, port } = ctx.config.server;
      throw new Error(`cannot listen on ${host}:${port}: the port is already in use (is another islet serve running?)`);
    }
    throw e;
  }
}
