import { createApp } from './app';
import type { AppContext } from './context';
import { BODY_LIMIT_BYTES } from './http/body';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets requests in flight finish, then closes the database. */
  stop(): Promise<void>;
}

/** Starts listening with the application built from `ctx`. */
export function startServer(ctx: AppContext, options: { migrationsFolder?: string } = {}): RunningServer {
  const app = createApp(ctx, options);
  const server = Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    // Larger than the API's own limit so that the API answers 413 in its own error shape.
    maxRequestBodySize: BODY_LIMIT_BYTES * 4,
    fetch: app.fetch,
  });
  let stopping: Promise<void> | undefined;
  return {
    url: server.url.toString().replace(/\/$/, ''),
    port: server.port ?? ctx.config.server.port,
    stop() {
      stopping ??= (async () => {
        await server.stop(false);
        ctx.db.$client.close();
      })();
      return stopping;
    },
  };
}
