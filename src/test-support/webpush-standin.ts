import { createECDH, createHmac, randomBytes } from 'node:crypto';
import { decryptPush } from './webpush-decrypt';
import { checkPush, type VapidClaims } from './webpush-push-rules';

/** What `PushSubscription.toJSON()` gives a page. */
export interface PushSubscriptionJSON {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

/** One push as the stand-in received it and what it answered. */
export interface WebPushReceived {
  /** The subscription's id (the endpoint's last path segment). */
  id: string;
  headers: Record<string, string>;
  bodyLength: number;
  status: number;
  /** The reason word of a refusal. */
  reason?: string;
  /** What exactly was wrong, for failure messages. */
  detail?: string;
  vapid?: VapidClaims;
  /** The decrypted payload of an accepted push. */
  plaintext?: string;
}

export interface WebPushAnswer {
  status: number;
  reason?: string;
  headers?: Record<string, string>;
}

export interface WebPushStandin {
  url: string;
  /** Every push received; empty when started with `record: false` (benchmarks). */
  requests: WebPushReceived[];
  /** Pushes accepted with 201 so far. */
  accepted(): number;
  /**
   * A browser subscribing: a fresh P-256 key pair and auth secret. With `applicationServerKey`, as
   * `pushManager.subscribe` gives it, only that VAPID key may push to the subscription.
   */
  subscribe(options?: { applicationServerKey?: string }): PushSubscriptionJSON;
  /** The decrypted payloads accepted for a subscription, oldest first. */
  inbox(endpoint: string): string[];
  /** The subscription is gone (unsubscribed, permission revoked): 410 from now on. */
  gone(endpoint: string): void;
  /** The next `times` pushes to the subscription answer 429 with `Retry-After: retryAfterS`. */
  tooMany(endpoint: string, retryAfterS?: number, times?: number): void;
  /** Answers valid pushes: return an answer to override 201 (5xx, 400 with a reason…). */
  respond(fn: ((req: WebPushReceived) => WebPushAnswer | undefined) | undefined): void;
  close(): Promise<void>;
}

interface Subscription {
  privateKey: Buffer;
  auth: Buffer;
  applicationServerKey?: string;
  gone: boolean;
  tooMany: { times: number; retryAfterS: number };
  inbox: string[];
}

export interface WebPushStandinOptions {
  port?: number;
  /** The push service's clock, for `exp` (default the system's). */
  now?: () => number;
  /** Keep every request in `requests` (default true). */
  record?: boolean;
  /**
   * Subscriptions `bench-<i>` exist without `subscribe`, their keys derived from this seed
   * (benchSubscription): a benchmark registers 100,000 without a round trip each.
   */
  benchSeed?: string;
  /** Their application server key. */
  benchApplicationServerKey?: string;
  /**
   * Decrypt one accepted push in this many (default 1: every one). Benchmarks set it so that the
   * stand-in, which shares the machine's cores with the sender it measures, does not spend them
   * playing every browser: the pushes not decrypted still pass every header and VAPID check.
   */
  decryptEvery?: number;
}

/**
 * A Web Push service and the browsers behind it, on 127.0.0.1: it enforces RFC 8030, 8291 and
 * 8292 and Apple's rules (webpush-push-rules.ts), decrypts what it accepts as the subscribing
 * browser would (refusing with 400 what a browser could not decrypt), answers 201 with a
 * Location, 410 for a subscription gone and 429 on demand.
 * @example const push = await startWebPushStandin(); const sub = push.subscribe({ applicationServerKey });
 */
export async function startWebPushStandin(options: WebPushStandinOptions = {}): Promise<WebPushStandin> {
  const subscriptions = new Map<string, Subscription>();
  const requests: WebPushReceived[] = [];
  const now = options.now ?? Date.now;
  let responder: Parameters<WebPushStandin['respond']>[0];
  let accepted = 0;
  /** Pushes that passed every check but decryption (for decryptEvery). */
  let passed = 0;
  const decryptEvery = Math.max(1, Math.floor(options.decryptEvery ?? 1));

  const server = Bun.serve({ hostname: '127.0.0.1', port: options.port ?? 0, fetch: route });
  const url = `http://127.0.0.1:${server.port}`;
  const origin = new URL(url).origin;

  const find = (id: string): Subscription | undefined => {
    const known = subscriptions.get(id);
    if (known || !options.benchSeed || !id.startsWith('bench-')) return known;
    const keys = benchSubscriptionKeys(options.benchSeed, id);
    const made: Subscription = { ...keys, applicationServerKey: options.benchApplicationServerKey, gone: false, tooMany: { times: 0, retryAfterS: 0 }, inbox: [] };
    subscriptions.set(id, made);
    return made;
  };
  const idOf = (endpoint: string) => endpoint.slice(endpoint.lastIndexOf('/') + 1);
  const answer = (received: WebPushReceived, status: number, reason?: string, headers: Record<string, string> = {}) => {
    received.status = status;
    received.reason = reason;
    if (options.record !== false) requests.push(received);
    const body = reason ? JSON.stringify({ reason }) : '';
    return new Response(body, { status, headers: { ...(reason ? { 'content-type': 'application/json' } : {}), ...headers } });
  };

  async function route(req: Request): Promise<Response> {
    const { pathname } = new URL(req.url);
    const id = pathname.match(/^\/push\/([A-Za-z0-9_-]+)$/)?.[1];
    if (req.method !== 'POST' || !id) return new Response('', { status: 404 });
    const body = new Uint8Array(await req.arrayBuffer());
    const received: WebPushReceived = { id, headers: Object.fromEntries(req.headers), bodyLength: body.length, status: 0 };
    const sub = find(id);
    if (!sub) return answer(received, 404, 'NotFound');
    if (sub.gone) return answer(received, 410, 'Unregistered');
    const checked = checkPush(req.headers, body.length, { origin, applicationServerKey: sub.applicationServerKey, nowMs: now() });
    if ('status' in checked) {
      received.detail = checked.detail;
      return answer(received, checked.status, checked.reason);
    }
    received.vapid = checked;
    if (sub.tooMany.times > 0) {
      sub.tooMany.times--;
      return answer(received, 429, 'TooManyRequests', { 'retry-after': String(sub.tooMany.retryAfterS) });
    }
    if (++passed % decryptEvery !== 0) {
      accepted++;
      return answer(received, 201, undefined, { location: `${url}/message/${accepted}` });
    }
    try {
      received.plaintext = decryptPush(body, sub).plaintext.toString('utf8');
    } catch (e) {
      // A real push service would take it and the browser drop it: here the test hears about it.
      received.detail = (e as Error).message;
      return answer(received, 400, 'UndecryptableByBrowser');
    }
    const override = responder?.(received);
    if (override && override.status !== 201) return answer(received, override.status, override.reason, override.headers);
    if (options.record !== false) sub.inbox.push(received.plaintext);
    accepted++;
    return answer(received, 201, undefined, { location: `${url}/message/${randomBytes(8).toString('hex')}` });
  }

  return {
    url,
    requests,
    accepted: () => accepted,
    subscribe(subscribeOptions = {}) {
      const ua = createECDH('prime256v1');
      ua.generateKeys();
      const id = randomBytes(12).toString('base64url');
      const auth = randomBytes(16);
      subscriptions.set(id, { privateKey: ua.getPrivateKey(), auth, applicationServerKey: subscribeOptions.applicationServerKey, gone: false, tooMany: { times: 0, retryAfterS: 0 }, inbox: [] });
      return { endpoint: `${url}/push/${id}`, expirationTime: null, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    inbox: (endpoint) => find(idOf(endpoint))?.inbox ?? [],
    gone: (endpoint) => void (find(idOf(endpoint))!.gone = true),
    tooMany: (endpoint, retryAfterS = 1, times = 1) => void (find(idOf(endpoint))!.tooMany = { times, retryAfterS }),
    respond: (fn) => void (responder = fn),
    close: async () => void (await server.stop(true)),
  };
}

/** The one browser key pair all bench subscriptions share (only their auth secrets differ). */
const benchBrowsers = new Map<string, { privateKey: Buffer; publicKey: string }>();
function benchBrowser(seed: string): { privateKey: Buffer; publicKey: string } {
  let browser = benchBrowsers.get(seed);
  if (!browser) {
    const ua = createECDH('prime256v1');
    ua.setPrivateKey(createHmac('sha256', seed).update('browser').digest());
    benchBrowsers.set(seed, (browser = { privateKey: ua.getPrivateKey(), publicKey: ua.getPublicKey().toString('base64url') }));
  }
  return browser;
}

function benchSubscriptionKeys(seed: string, id: string): { privateKey: Buffer; auth: Buffer } {
  return { privateKey: benchBrowser(seed).privateKey, auth: createHmac('sha256', seed).update(id).digest().subarray(0, 16) };
}

/** The subscription `bench-<index>` of a stand-in started with `benchSeed`, as its page would register it. */
export function benchSubscription(url: string, seed: string, index: number): PushSubscriptionJSON {
  const id = `bench-${index}`;
  return {
    endpoint: `${url}/push/${id}`,
    expirationTime: null,
    keys: { p256dh: benchBrowser(seed).publicKey, auth: benchSubscriptionKeys(seed, id).auth.toString('base64url') },
  };
}
