import { randomUUID } from 'node:crypto';
import http2, { type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { systemClock, type Clock } from '../lib/clock';
import type { StandinAnswer } from './apns-answer';
import { BroadcastChannels, isBroadcastPath } from './apns-broadcast-standin';
import type { PhoneFleet } from './apns-device-model';
import { FaultInjector, seededRandom, type Fault, type FaultSettings } from './fault-injection';
import { testCertificate } from './tls';
import { checkNotificationPush, checkReloadPush } from './apns-notification-rules';

// The answer's shape and the token's live apart so that the phones and channels need not import this file.
export { apnsToken, type StandinAnswer } from './apns-answer';

/** A key the stand-in accepts provider tokens from. */
export interface StandinKey {
  keyId: string;
  teamId: string;
  /** SPKI PEM of the key's public half. */
  publicKey: string;
}

export interface ApnsStandinOptions {
  keys: StandinKey[];
  /** Bundle ids whose topics are accepted; any when absent. */
  bundleIds?: string[];
  /** The SETTINGS_MAX_CONCURRENT_STREAMS the server announces. */
  maxConcurrentStreams?: number;
  /** Decides when a provider token is too old (60 minutes, as Apple). */
  clock?: Clock;
  /** Which of Apple's hosts this stand-in plays: the modelled phones refuse tokens of the other one. */
  environment?: 'production' | 'sandbox';
  /** Modelled phones (apns-device-model.ts) that receive valid pushes to their tokens. */
  phones?: PhoneFleet;
  host?: string;
  port?: number;
  /** Seed of the fault draws (fault-injection.ts). */
  seed?: number;
}

/** One request as the stand-in received it. */
export interface ApnsReceived {
  method: string;
  path: string;
  /** The last path segment: the device token (or, on broadcast paths, the bundle id or `channels`). */
  token: string;
  headers: Record<string, string>;
  body: any;
  raw: string;
  /** The provider token's key id, when it verified. */
  keyId?: string;
}

export interface ApnsStandin {
  url: string;
  /** PEM of the stand-in's self-signed certificate, to pass as the client's `ca`. */
  ca: string;
  requests: ApnsReceived[];
  /** Distinct provider tokens accepted, per key id. */
  providerTokens: Map<string, Set<string>>;
  stats: { connections: number; pings: number; maxActiveStreams: number; activeStreams: number };
  /** Answers valid requests: return an answer (or a promise of one) to override 200. */
  respond(fn: ((req: ApnsReceived) => StandinAnswer | undefined | Promise<StandinAnswer | undefined>) | undefined): void;
  /** Called for each request answered 200, once the answer is out (a stream cut before that does not count). */
  onDelivered(fn: (req: ApnsReceived) => void): void;
  /** Makes a device token answer 410 Unregistered from now on. */
  unregister(token: string): void;
  /** Sends GOAWAY on every open connection. */
  goaway(): void;
  /** Announces a new stream limit on open connections and uses it for new ones. */
  setMaxConcurrentStreams(n: number): void;
  /** The channel-management API and broadcast endpoint of this environment (apns-broadcast-standin.ts). */
  broadcast: BroadcastChannels;
  /** Injected failures on valid requests: `faults.set({ rate: 0.1 })`. */
  faults: FaultInjector;
  /** Goes away: stops listening and drops every connection (connections are refused) until `comeBack`. */
  goAway(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

const TOKEN = /^[0-9a-f]{64,200}$/i;
const PUSH_TYPES = new Set(['alert', 'background', 'liveactivity', 'voip', 'complication', 'fileprovider', 'mdm', 'location', 'pushtotalk', 'widgets', 'controls']);
/** Push types whose topic is the bundle id with a suffix (Apple's "Sending notification requests to APNs" and the WidgetKit articles). */
const TOPIC_SUFFIX: Record<string, string> = { liveactivity: '.push-type.liveactivity', widgets: '.push-type.widgets', controls: '.push-type.controls' };

/**
 * An HTTP/2 TLS server that speaks enough APNs for tests and benchmarks: it verifies the ES256
 * provider token against the registered public keys, checks the path, topic, push type, priority
 * and payload size (and for alert, background, widgets and controls pushes Apple's rules of apns-notification-rules.ts),
 * answers with Apple's reason codes, and can send GOAWAY or lower its stream limit.
 * @example const apns = await startApnsStandin({ keys: [{ keyId, teamId, publicKey }] });
 */
export async function startApnsStandin(options: ApnsStandinOptions): Promise<ApnsStandin> {
  const { cert, key } = testCertificate();
  const clock = options.clock ?? systemClock;
  let maxStreams = options.maxConcurrentStreams ?? 1000;
  const keys = new Map<string, { teamId: string; key: Promise<CryptoKey> }>();
  for (const k of options.keys) keys.set(k.keyId, { teamId: k.teamId, key: importSPKI(k.publicKey, 'ES256') });
  const verified = new Map<string, { keyId: string; iat: number }>();
  const unregistered = new Set<string>();
  const sessions = new Set<ServerHttp2Session>();
  let responder: Parameters<ApnsStandin['respond']>[0];
  let answered: ((req: ApnsReceived) => void) | undefined;
  /** Connections with a GOAWAY to send (goAwayAfter), and the streams each has in flight. */
  const goingAway = new WeakSet<http2.Http2Session>();
  const inFlight = new WeakMap<http2.Http2Session, number>();
  const lastSeen = new WeakMap<http2.Http2Session, number>();
  /** The last-stream-id of the GOAWAY a connection sent. */
  const announced = new WeakMap<http2.Http2Session, number>();
  const faults = new FaultInjector(options.seed === undefined ? Math.random : seededRandom(options.seed));
  const broadcast = new BroadcastChannels(options.environment ?? 'production', { bundleIds: options.bundleIds, phones: options.phones });

  const standin = {
    requests: [] as ApnsReceived[],
    providerTokens: new Map<string, Set<string>>(),
    stats: { connections: 0, pings: 0, maxActiveStreams: 0, activeStreams: 0 },
  };

  /** Apple's checks of the provider token: known key, right team, good signature, not older than an hour. */
  async function checkAuth(authorization: string | undefined): Promise<{ keyId: string } | StandinAnswer> {
    const jwt = authorization?.match(/^bearer (.+)$/i)?.[1];
    if (!jwt) return { status: 403, reason: 'MissingProviderToken' };
    let claims = verified.get(jwt);
    if (!claims) {
      try {
        const { kid } = decodeProtectedHeader(jwt);
        const entry = kid ? keys.get(kid) : undefined;
        if (!entry) return { status: 403, reason: 'InvalidProviderToken' };
        const { payload } = await jwtVerify(jwt, await entry.key, { algorithms: ['ES256'], issuer: entry.teamId, currentDate: new Date(clock.now()) });
        if (typeof payload.iat !== 'number') return { status: 403, reason: 'InvalidProviderToken' };
        claims = { keyId: kid!, iat: payload.iat };
        verified.set(jwt, claims);
      } catch {
        return { status: 403, reason: 'InvalidProviderToken' };
      }
    }
    if (clock.now() / 1000 - claims.iat > 3600) return { status: 403, reason: 'ExpiredProviderToken' };
    let seen = standin.providerTokens.get(claims.keyId);
    if (!seen) standin.providerTokens.set(claims.keyId, (seen = new Set()));
    seen.add(jwt);
    return { keyId: claims.keyId };
  }

  function checkRequest(path: string, method: string, headers: Record<string, string>, raw: string): StandinAnswer | undefined {
    if (method !== 'POST') return { status: 405, reason: 'BadMethod' };
    const token = path.match(/^\/3\/device\/([^/?]+)$/)?.[1];
    if (!token) return { status: 404, reason: 'BadPath' };
    if (!TOKEN.test(token)) return { status: 400, reason: 'BadDeviceToken' };
    const pushType = headers['apns-push-type'];
    if (!pushType || !PUSH_TYPES.has(pushType)) return { status: 400, reason: 'InvalidPushType' };
    const topic = headers['apns-topic'];
    if (!topic) return { status: 400, reason: 'MissingTopic' };
    const suffix = TOPIC_SUFFIX[pushType] ?? '';
    if (suffix && !topic.endsWith(suffix)) return { status: 400, reason: 'BadTopic' };
    const bundle = suffix ? topic.slice(0, -suffix.length) : topic;
    if (options.bundleIds && !options.bundleIds.includes(bundle)) return { status: 400, reason: 'TopicDisallowed' };
    const priority = headers['apns-priority'];
    if (priority !== undefined && priority !== '5' && priority !== '10') return { status: 400, reason: 'BadPriority' };
    if (Buffer.byteLength(raw) > 4096) return { status: 413, reason: 'PayloadTooLarge' };
    let body: { aps?: unknown };
    try {
      body = JSON.parse(raw) as { aps?: unknown };
      if (typeof body.aps !== 'object' || body.aps === null) return { status: 400, reason: 'PayloadEmpty' };
    } catch {
      return { status: 400, reason: 'PayloadEmpty' };
    }
    const refused = checkNotificationPush(pushType, headers, body as { aps: Record<string, unknown> }) ?? checkReloadPush(pushType, body as { aps: Record<string, unknown> });
    if (refused) return refused;
    if (unregistered.has(token)) return { status: 410, reason: 'Unregistered' };
    return undefined;
  }

  /** The answer a fault gives, or undefined when it cut the stream instead (a GOAWAY is sent after a normal answer). */
  function injected(stream: ServerHttp2Stream, fault: Exclude<Fault, 'goaway'>): StandinAnswer | undefined {
    switch (fault) {
      case 'internal':
        return { status: 500, reason: 'InternalServerError' };
      case 'unavailable':
        return { status: 503, reason: 'ServiceUnavailable' };
      case 'too-many':
        return { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': String(faults.retryAfterS) } };
      case 'reset':
        // Read and then cut: the client cannot know whether it was acted on.
        stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        return undefined;
    }
  }

  /**
   * Sends GOAWAY once the connection has no stream in flight (or after half a second), with the
   * last stream this handler saw as its last-stream-id; streams above it that still arrive are
   * refused unprocessed, and the client sends them again on a new connection. (Bun's server cuts
   * the streams in flight when it sends GOAWAY, which APNs does not, hence the quiet moment.)
   */
  function goAwayAfter(stream: ServerHttp2Stream): void {
    const session = stream.session;
    if (!session || goingAway.has(session)) return;
    goingAway.add(session);
    const started = Date.now();
    const check = () => {
      if (session.destroyed) return;
      if ((inFlight.get(session) ?? 0) > 0 && Date.now() - started < 500) return void setTimeout(check, 5);
      // The last stream this handler has seen: streams above it are not processed (see 'stream').
      const last = lastSeen.get(session) ?? 0;
      announced.set(session, last);
      session.goaway(http2.constants.NGHTTP2_NO_ERROR, last);
    };
    setImmediate(check);
  }

  async function handle(stream: ServerHttp2Stream, rawHeaders: http2.IncomingHttpHeaders, raw: string): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(rawHeaders)) if (!name.startsWith(':') && typeof value === 'string') headers[name] = value;
    const path = String(rawHeaders[':path'] ?? '');
    const method = String(rawHeaders[':method']);
    const received: ApnsReceived = { method, path, token: path.split('/').pop() ?? '', headers, body: safeJson(raw), raw };
    standin.requests.push(received);
    const auth = await checkAuth(headers.authorization);
    const broadcastPath = isBroadcastPath(path);
    let answer: (StandinAnswer & { commit?: () => void }) | undefined = 'status' in auth ? auth : undefined;
    if (!answer) {
      received.keyId = (auth as { keyId: string }).keyId;
      answer = broadcastPath ? broadcast.check(method, path, headers, raw) : checkRequest(path, method, headers, raw);
    }
    const fault = answer && answer.status >= 300 ? undefined : faults.draw();
    if (fault && fault !== 'goaway') {
      answer = injected(stream, fault);
      if (!answer) return;
    } else answer?.commit?.();
    // A fault is the provider failing: the phone gets nothing.
    if (!answer && options.phones) answer = options.phones.receive(received.token, headers, received.body, options.environment ?? 'production');
    if (!answer && responder) answer = await responder(received);
    answer ??= { status: 200 };
    if (stream.destroyed || stream.closed) return;
    // The broadcast and management APIs answer with apns-request-id (in answer.headers), not apns-id.
    const id = broadcastPath ? {} : { 'apns-id': randomUUID().toUpperCase() };
    const json = answer.reason !== undefined || answer.body !== undefined;
    stream.respond({ ':status': answer.status, ...id, ...(json ? { 'content-type': 'application/json' } : {}), ...answer.headers });
    stream.end(answer.reason ? JSON.stringify({ reason: answer.reason, ...(answer.status === 410 ? { timestamp: answer.timestamp ?? clock.now() } : {}) }) : answer.body);
    if (answer.status === 200) answered?.(received);
    if (fault === 'goaway') goAwayAfter(stream);
  }

  const server = http2.createSecureServer({ cert, key, settings: { maxConcurrentStreams: maxStreams } });
  server.on('session', (session) => {
    standin.stats.connections++;
    sessions.add(session);
    session.settings({ maxConcurrentStreams: maxStreams });
    session.on('ping', () => standin.stats.pings++);
    session.on('error', () => {});
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    // A refused or reset stream emits an error that would otherwise crash the server.
    stream.on('error', () => {});
    const session = stream.session!;
    const last = announced.get(session);
    if (last !== undefined && (stream.id ?? Infinity) > last) {
      // Above the GOAWAY's last-stream-id: refused, never processed (the client sends it again).
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    standin.stats.activeStreams++;
    standin.stats.maxActiveStreams = Math.max(standin.stats.maxActiveStreams, standin.stats.activeStreams);
    inFlight.set(session, (inFlight.get(session) ?? 0) + 1);
    lastSeen.set(session, Math.max(lastSeen.get(session) ?? 0, stream.id ?? 0));
    stream.on('close', () => {
      standin.stats.activeStreams--;
      inFlight.set(session, inFlight.get(session)! - 1);
    });
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      handle(stream as ServerHttp2Stream, headers, Buffer.concat(chunks).toString('utf8')).catch(() => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const address = server.address() as { port: number };
  let listening = true;

  return {
    ...standin,
    broadcast,
    url: `https://127.0.0.1:${address.port}`,
    ca: cert,
    respond: (fn) => {
      responder = fn;
    },
    unregister: (token) => unregistered.add(token),
    onDelivered: (fn) => {
      answered = fn;
    },
    goaway: () => {
      for (const s of sessions) s.goaway(http2.constants.NGHTTP2_NO_ERROR);
    },
    setMaxConcurrentStreams: (n) => {
      maxStreams = n;
      for (const s of sessions) s.settings({ maxConcurrentStreams: n });
    },
    faults,
    goAway: () =>
      new Promise<void>((resolve) => {
        if (!listening) return resolve();
        listening = false;
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
    comeBack: () =>
      new Promise<void>((resolve) => {
        if (listening) return resolve();
        listening = true;
        server.listen(address.port, host, resolve);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        if (!listening) return resolve();
        listening = false;
        server.close(() => resolve());
      }),
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

// As a separate process (benchmarks, chaos): keys from APNS_STANDIN_KEYS (JSON array of
// StandinKey), prints one JSON line {url, ca} once listening, then, every 20 ms while it changes,
// {accepted, distinct, lastAt}: the valid requests answered 200 so far, how many distinct device
// tokens they went to (fewer: duplicates), and when the last arrived (epoch ms, fractional).
// Commands, one JSON line each on stdin: {"goAway": true}, {"comeBack": true}, {"faults": FaultSettings},
// {"reset": true} (the counts start again from zero, for the next run of the same devices).
if (import.meta.main) {
  const standin = await startApnsStandin({
    keys: JSON.parse(process.env.APNS_STANDIN_KEYS ?? '[]') as StandinKey[],
    port: Number(process.env.APNS_STANDIN_PORT ?? 0),
    maxConcurrentStreams: Number(process.env.APNS_STANDIN_MAX_STREAMS ?? 1000),
    seed: process.env.APNS_STANDIN_SEED === undefined ? undefined : Number(process.env.APNS_STANDIN_SEED),
  });
  let accepted = 0;
  let lastAt = 0;
  const tokens = new Set<string>();
  standin.onDelivered((req) => {
    // Keeping every request would grow without end in a long benchmark.
    standin.requests.length = 0;
    accepted++;
    tokens.add(req.token);
    lastAt = performance.timeOrigin + performance.now();
  });
  process.stdout.write(`${JSON.stringify({ url: standin.url, ca: standin.ca })}\n`);
  let reported = 0;
  setInterval(() => {
    if (accepted === reported) return;
    reported = accepted;
    process.stdout.write(`${JSON.stringify({ accepted, distinct: tokens.size, lastAt })}\n`);
  }, 20);
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of Bun.stdin.stream()) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const command = JSON.parse(buffered.slice(0, end)) as { goAway?: true; comeBack?: true; faults?: FaultSettings; reset?: true };
        buffered = buffered.slice(end + 1);
        if (command.goAway) await standin.goAway();
        if (command.comeBack) await standin.comeBack();
        if (command.faults) standin.faults.set(command.faults);
        if (command.reset) {
          accepted = 0;
          lastAt = 0;
          tokens.clear();
          // Reported at once, even when nothing had arrived since the last report.
          reported = -1;
        }
      }
    }
  })();
  process.on('SIGTERM', () => standin.close().then(() => process.exit(0)));
}
