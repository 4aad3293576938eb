import { createHash } from 'node:crypto';
import type { Clock } from '../../../../lib/clock';
import type { Logger } from '../../../../lib/logger';
import { guardedLookup, outboundGuard, type OutboundPolicy } from '../../../../lib/outbound-policy';
import type { ApnsCredentials } from '../../../apps/credentials';
import { retryAfterMs, type Outcome, type PushRequest, type Transport } from '../transport';
import { connectionReason, reasonCode } from '../provider-reason';
import { apnsOutcome } from './apns.outcome';
import { Http2Connection, StreamError, type Http2Answer } from './apns.session';
import { ApnsTokens } from './apns.token';

export const APNS_PRODUCTION = 'https://api.push.apple.com';
export const APNS_SANDBOX = 'https://api.sandbox.push.apple.com';

/**
 * Streams one connection carries at most, and connections per endpoint and key at most. Bun's
 * node:http2 client spent almost twice the CPU per request with 1,000 streams open on one session
 * as with 100 (the layout was chosen then; src/lib/http2 keeps it), so a fan-out is spread over a
 * few connections (as Apple suggests for volume) while as many requests stay in flight as one
 * connection at Apple's limit would hold.
 */
export const APNS_STREAMS_PER_CONNECTION = 250;
export const APNS_MAX_CONNECTIONS = 4;
/** Times a stream the server did not process is resent at once before the worker retries it later. */
const RESENDS = 10;

export interface ApnsClientOptions {
  clock: Clock;
  logger: Logger;
  tokens?: ApnsTokens;
  pingIntervalMs?: number;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  streamsPerConnection?: number;
  maxConnections?: number;
  /** Where pushes may go (default: public https hosts only). */
  outbound?: OutboundPolicy;
}

/**
 * The APNs transport: native HTTP/2, long-lived connections per endpoint and credential (one, and
 * a few more under load), many streams on each, ES256 provider tokens reused for their refresh window.
 * @example const apns = new ApnsClient({ clock, logger }); const outcome = await apns.send(request);
 */
export class ApnsClient implements Transport {
  readonly tokens: ApnsTokens;
  private readonly pools = new Map<string, Http2Connection[]>();
  private readonly keys = new WeakMap<ApnsCredentials, string>();
  private readonly pingIntervalMs: number;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly streamsPerConnection: number;
  private readonly maxConnections: number;
  /** Connections opened so far (a GOAWAY or an error makes the next send open another). */
  connectionsOpened = 0;
  private closed = false;
  private readonly allowed: ReturnType<typeof outboundGuard>;
  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(private readonly options: ApnsClientOptions) {
    this.allowed = outboundGuard(options.outbound ?? { allowPrivate: false });
    this.lookup = guardedLookup(options.outbound ?? { allowPrivate: false });
    this.tokens = options.tokens ?? new ApnsTokens(options.clock);
    this.pingIntervalMs = options.pingIntervalMs ?? 60_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.streamsPerConnection = options.streamsPerConnection ?? APNS_STREAMS_PER_CONNECTION;
    this.maxConnections = options.maxConnections ?? APNS_MAX_CONNECTIONS;
  }

  async send(request: PushRequest): Promise<Outcome> {
    if (!request.apns) return { kind: 'failed', reason: 'no APNs credentials' };
    const exchanged = await this.exchange(request.apns, 'POST', request.url, request.headers, request.body);
    if ('kind' in exchanged) return exchanged;
    const { reason, timestamp } = exchanged.status === 200 ? {} : apnsErrorBody(exchanged.body);
    return apnsOutcome({
      status: exchanged.status,
      reason,
      timestamp,
      // A UUID from Apple; whatever else answers there gets no more room than one.
      apnsId: apnsHeader(exchanged.headers['apns-id'])?.slice(0, 64),
      retryAfterMs: retryAfterMs(apnsHeader(exchanged.headers['retry-after']), this.options.clock.now()),
    });
  }

  /**
   * One request to an APNs host (device pushes, broadcasts, channel management) on this client's
   * pooled connections with its provider token: the answer, or the outcome that stands for it when
   * no answer came (no usable key, an endpoint the outbound policy refuses, a connection failure).
   */
  async exchange(creds: ApnsCredentials, method: string, target: string, headers: Record<string, string>, body: string): Promise<Http2Answer | Extract<Outcome, { kind: 'pause-channel' | 'unreachable' }>> {
    let token: string;
    try {
      token = await this.tokens.get(creds);
    } catch (e) {
      return { kind: 'pause-channel', reason: `APNs key refused: ${(e as Error).message}` };
    }
    if (this.closed) return { kind: 'unreachable', reason: 'shutting down' };
    // Checked again here, not only when the endpoint was set: a name can resolve elsewhere since.
    const url = new URL(target);
    const refused = await this.allowed(url, 'APNs endpoint');
    if (refused) return { kind: 'pause-channel', reason: refused };
    const request = { ':method': method, ':path': url.pathname, authorization: `bearer ${token}`, ...headers };
    // A stream the server said it did not process (refused, above a GOAWAY's last stream id) is
    // resent at once on a fresh connection, a few times; none of that is a delivery attempt.
    let refusedBy: Http2Connection | undefined;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) return { kind: 'unreachable', reason: 'shutting down' };
      const connection = this.connection(url.origin, creds, refusedBy);
      try {
        const answer = await connection.request(request, body, this.requestTimeoutMs);
        if (answer.status >= 400 && apnsErrorBody(answer.body).reason === 'ExpiredProviderToken') this.tokens.expire(creds);
        return answer;
      } catch (e) {
        const error = e instanceof StreamError ? e : new StreamError((e as Error).message, false);
        if (error.unprocessed && error.serverAlive && attempt < RESENDS) {
          refusedBy = connection;
          continue;
        }
        return {
          kind: 'unreachable',
          reason: connectionReason(error.message, error.unprocessed ? 'not sent' : 'outcome unknown'),
          ...(error.serverAlive ? { serverAlive: true } : {}),
        };
      }
    }
  }

  /** The open connections' state (streams in use, their limit, requests waiting), for tests and diagnostics. */
  connectionStates(): { origin: string; closed: boolean; active: number; limit: number; queued: number }[] {
    return [...this.pools.values()].flat().map((c) => ({ origin: c.origin, closed: c.closed, ...c.load }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const connection of [...this.pools.values()].flat()) connection.destroy();
    this.pools.clear();
  }

  /**
   * The least loaded open connection of the pool for this endpoint and key. Another is opened only
   * when that one is full at our own per-connection cap, never to get around a lower limit the
   * server set in its SETTINGS (nor before they arrived).
   */
  private connection(origin: string, creds: ApnsCredentials, avoid?: Http2Connection): Http2Connection {
    const key = `${origin}|${this.credentialKey(creds)}`;
    let pool = this.pools.get(key) ?? [];
    if (pool.some((c) => c.closed)) {
      // A closed one (GOAWAY, error) takes no new requests and closes once its streams are done.
      for (const c of pool) if (c.closed) c.close();
      pool = pool.filter((c) => !c.closed);
    }
    this.pools.set(key, pool);
    let best: Http2Connection | undefined;
    // A resend of a stream the server did not process goes elsewhere when it can: that connection may be draining.
    for (const c of pool) if (c !== avoid && (!best || c.pending < best.pending)) best = c;
    const full = best !== undefined && best.load.limit === this.streamsPerConnection && best.pending >= this.streamsPerConnection;
    if (!best && avoid && pool.length >= this.maxConnections) best = avoid;
    if (!best || (full && pool.length < this.maxConnections)) {
      best = new Http2Connection(origin, {
        ca: creds.ca,
        pingIntervalMs: this.pingIntervalMs,
        connectTimeoutMs: this.connectTimeoutMs,
        maxStreams: this.streamsPerConnection,
        lookup: this.lookup,
        logger: this.options.logger,
      });
      pool.push(best);
      this.connectionsOpened++;
    }
    return best;
  }

  private credentialKey(creds: ApnsCredentials): string {
    let key = this.keys.get(creds);
    if (!key) {
      key = `${creds.teamId}:${creds.keyId}:${createHash('sha256').update(`${creds.key}\0${creds.ca ?? ''}`).digest('hex').slice(0, 16)}`;
      this.keys.set(creds, key);
    }
    return key;
  }
}

/**
 * The APNs host for a token's environment: Apple's production or sandbox host, unless the
 * credentials override that environment's host (`endpoint` production, `sandboxEndpoint` sandbox).
 */
export function apnsOrigin(creds: Pick<ApnsCredentials, 'endpoint' | 'sandboxEndpoint'> | undefined, environment: 'production' | 'sandbox'): string {
  const override = environment === 'sandbox' ? creds?.sandboxEndpoint : creds?.endpoint;
  if (override) return override.replace(/\/+$/, '');
  return environment === 'sandbox' ? APNS_SANDBOX : APNS_PRODUCTION;
}

/** One value of a response header. */
export function apnsHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The `reason` and (410) `timestamp` of an APNs error body. */
export function apnsErrorBody(body: string): { reason?: string; timestamp?: number } {
  try {
    const { reason, timestamp } = JSON.parse(body) as { reason?: unknown; timestamp?: unknown };
    return { reason: reasonCode(reason), timestamp: typeof timestamp === 'number' ? timestamp : undefined };
  } catch {
    return {};
  }
}
