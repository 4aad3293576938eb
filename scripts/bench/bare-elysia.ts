/**
 * The API baselines: a bare Elysia server with one PATCH route that validates a small JSON body and
 * answers `{success: true}`, the least any framework-based update endpoint does. With `--durable
 * FILE` the route first writes the body to one row of a SQLite table opened the way Islet opens its
 * database (src/db/sqlite/database.ts: WAL, synchronous NORMAL, the same pragmas), one autocommitted
 * UPDATE per request before the answer: the least a durable update endpoint does.
 * Prints one JSON line once it listens, with its `url` (PORT 0 or none: a free port, so two benchmarks never collide).
 * Usage: bun scripts/bench/bare-elysia.ts [PORT] [--durable FILE]
 */
import { parseArgs } from 'node:util';
import { Elysia, t } from 'elysia';
import { openDatabase } from '../../src/db/sqlite/database';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { durable: { type: 'string' } } });
const port = Number(positionals[0] ?? 0);
const body = t.Object({ contentState: t.Record(t.String(), t.String()) });

let update: ((id: string, contentState: string) => number) | undefined;
if (values.durable) {
  const client = openDatabase(values.durable).$client;
  client.exec('CREATE TABLE IF NOT EXISTS activities (id TEXT PRIMARY KEY, content_state TEXT NOT NULL, updated_at INTEGER NOT NULL)');
  const statement = client.prepare<unknown, [string, number, string]>('UPDATE activities SET content_state = ?, updated_at = ? WHERE id = ?');
  const insert = client.prepare<unknown, [string, string, number]>('INSERT INTO activities (id, content_state, updated_at) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET content_state = excluded.content_state');
  // The caller names the rows it will update (the ids of its Islet activities) on stdin, one line.
  const ids = JSON.parse((await new Response(Bun.stdin.stream()).text()) || '[]') as string[];
  client.transaction(() => ids.forEach((id) => insert.run(id, '{}', Date.now())))();
  update = (id, contentState) => statement.run(contentState, Date.now(), id).changes;
}

const app = new Elysia()
  .patch(
    '/api/apps/:appId/live-activities/:id',
    ({ params, body, set }) => {
      if (update && update(params.id, JSON.stringify(body.contentState)) === 0) {
        set.status = 404;
        return { title: 'Not Found', status: 404, detail: `no activity ${params.id}` };
      }
      return { success: true };
    },
    { body },
  )
  .listen({ port, hostname: '127.0.0.1' });
console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${app.server!.port}`, durable: Boolean(update) }));
