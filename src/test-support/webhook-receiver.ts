import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, any>;
}

export interface WebhookReceiver {
  url: string;
  /** Events that verified with the secret, in the order they arrived (a retry of one event arrives again). */
  events: ReceivedEvent[];
  /** Requests whose signature did not verify (should stay empty). */
  rejected: string[];
  /** Every request's answer from now on (503: the receiver is failing). */
  answer(status: number): void;
  /** Requests from now on get no answer (a receiver that hangs) until `release`. */
  hold(): void;
  /** Answers the requests held, and those to come, as `answer` says. */
  release(): void;
  /** Requests read and not answered yet (held). */
  open: number;
  /** Stops listening (connections are refused) until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** The secret signatures are checked with (set after the endpoint was created). */
  secret: string;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with the `standardwebhooks`
 * package (signature and timestamp tolerance against Date.now) before it counts the event.
 * @example const r = await startWebhookReceiver(); … r.secret = created.secret; … expect(r.events.map((e) => e.type))…
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let status = 204;
  let held: (() => void)[] | undefined;
  const receiver: WebhookReceiver = {
    url: '',
    events: [],
    rejected: [],
    secret: '',
    open: 0,
    answer: (s) => void (status = s),
    hold: () => void (held ??= []),
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    async down() {
      await server?.stop(true);
      server = undefined;
    },
    up() {
      server = serve(port);
    },
    async close() {
      await server?.stop(true);
    },
  };
  const serve = (p: number) =>
    Bun.serve({
      hostname: '127.0.0.1',
      port: p,
      async fetch(request) {
        const body = await request.text();
        const headers = Object.fromEntries(request.headers);
        if (held) {
          receiver.open++;
          await new Promise<void>((go) => held!.push(go));
          receiver.open--;
        }
        try {
          new Webhook(receiver.secret).verify(body, headers);
        } catch (e) {
          receiver.rejected.push(`${headers['webhook-id']}: ${e instanceof Error ? e.message : String(e)}`);
          return new Response('bad signature', { status: 400 });
        }
        if (status >= 200 && status < 300) {
          const parsed = JSON.parse(body) as Omit<ReceivedEvent, 'id'>;
          receiver.events.push({ id: headers['webhook-id']!, ...parsed });
        }
        return new Response(null, { status });
      },
    });
  let server: ReturnType<typeof Bun.serve> | undefined = serve(0);
  const port = server.port!;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  return receiver;
}
