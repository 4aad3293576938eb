/**
 * What runs inside the outbox thread (the Worker that outbox-thread.client.ts starts and talks to
 * from the main thread): its own connection to the database, running the delivery worker's claim
 * and record statements in the order they arrive. A second entry point of the compiled binary
 * (scripts/build.ts).
 */
import { openDatabase } from '../../../db/sqlite/database';
import { deliveriesRepository } from '../worker/delivery.repository';
import { sqliteSql } from '../../../db/sqlite/sqlite-sql';
import type { DeliveryRepository } from '../worker/delivery.repository';
import type { ClaimedDelivery } from '../worker/delivery.routing';
import type { ThreadReply, ThreadRequest } from './outbox-thread.client';

declare const self: Worker;

let repo: DeliveryRepository | undefined;
let close: (() => void) | undefined;

self.onmessage = async (event: MessageEvent<ThreadRequest>) => {
  const request = event.data;
  const reply = (message: ThreadReply) => self.postMessage(message);
  try {
    switch (request.op) {
      case 'open': {
        const db = openDatabase(request.path, { maxSizeMb: request.maxSizeMb });
        repo = deliveriesRepository(sqliteSql(db.$client));
        close = () => db.$client.close();
        return reply({ id: request.id, value: null });
      }
      case 'claim':
        return reply({ id: request.id, value: packClaimed(await repo!.claim(request.now, request.limit)) });
      case 'record':
        return reply({ id: request.id, value: await repo!.record(JSON.parse(request.results), request.now) });
      case 'close':
        close?.();
        return reply({ id: request.id, value: null });
    }
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    reply({ id: request.id, error: { message: e instanceof Error ? e.message : String(e), code: typeof code === 'string' ? code : undefined } });
  }
};

/** Claimed rows as one JSON string, each message's content and body once (see unpackClaimed). */
function packClaimed(rows: ClaimedDelivery[]): string {
  const messages: Record<number, [string, string | null]> = {};
  const slim = rows.map(({ content, sentBody, ...row }) => {
    messages[row.messageId] ??= [content, sentBody];
    return row;
  });
  return JSON.stringify({ messages, rows: slim });
}
