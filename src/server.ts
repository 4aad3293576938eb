import { createApp } from './app';
import type { AppContext } from './context';
import { BODY_LIMIT_BYTES } from './http/body';
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
  const server = Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    // Declared lengths over the limit get a 413 problem from the app; this caps chunked bodies.
    maxRequestBodySize: BODY_LIMIT_BYTES,
    // Bundle the console once and serve it minified, not in Bun's watch-and-reload mode.
    development: false,
    routes: consoleServeRoutes(app.fetch),
    fetch: app.fetch,
  });
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
