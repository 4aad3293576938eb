/**
 * The API baseline: a bare Elysia server with one PATCH route that validates a small JSON body and
 * answers `{success: true}`, the least any framework-based update endpoint does.
 * Usage: bun scripts/bench/bare-elysia.ts PORT
 */
import { Elysia, t } from 'elysia';

const port = Number(process.argv[2] ?? 19200);
new Elysia()
  .patch('/api/apps/:appId/live-activities/:id', () => ({ success: true }), {
    body: t.Object({ contentState: t.Record(t.String(), t.String()) }),
  })
  .listen({ port, hostname: '127.0.0.1' });
console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}` }));
