import { isIP } from 'node:net';
import { H2Connection } from '../../../../lib/http2/connection';
import type { RequestHeaders } from '../../../../lib/http2/request-encoder';
import { StreamError, type Http2Answer } from '../../../../lib/http2/stream';
import type { Logger } from '../../../../lib/logger';
import type { guardedLookup } from '../../../../lib/outbound-policy';

export interface SessionOptions {
  /** Extra trusted CA (PEM) for a non-Apple endpoint. */
  ca?: string;
  /** Real time between keep-alive PINGs; a PING still unanswered when the next is due closes the session. */
  pingIntervalMs: number;
  /** Real time to wait for the server's SETTINGS before giving up on the connection. */
  connectTimeoutMs: number;
  /** Streams at most, even when the server allows more. */
  maxStreams?: number;
  /** Name resolution for the connection (the outbound policy's guarded lookup). */
  lookup?: ReturnType<typeof guardedLookup>;
  logger: Logger;
}

export { StreamError, type Http2Answer };

/**
 * One long-lived HTTP/2 connection to a push endpoint. It opens at most as many streams as the
 * server's SETTINGS allow (APNs starts low and changes the limit; a stream over it is refused),
 * queues the rest, keeps the connection alive with PINGs, and stops taking new streams on GOAWAY
 * or error so the pool opens a fresh one while the streams in flight finish.
 */
export class Http2Connection {
  private readonly session: H2Connection;
  private active = 0;
  private limit = 0;
  private readonly waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly pingTimer: ReturnType<typeof setInterval>;
  private readonly connectTimer: ReturnType<typeof setTimeout>;
  private pingInFlight = false;
  /** True once no new stream may start here. */
  closed = false;

  constructor(
    readonly origin: string,
    private readonly options: SessionOptions,
  ) {
    const url = new URL(origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // TLS has no server name for an IP address: use localhost, which test certificates carry.
    this.session = new H2Connection(
      { host, port: Number(url.port || 443), servername: isIP(host) ? 'localhost' : host, ca: options.ca, lookup: options.lookup as never },
      {
        settings: (maxConcurrentStreams) => {
          clearTimeout(this.connectTimer);
          this.limit = Math.min(maxConcurrentStreams ?? 1000, options.maxStreams ?? Infinity);
          this.wake();
        },
        goaway: () => this.shut(new StreamError('the server sent GOAWAY', true, true)),
        // After about a billion streams: like a GOAWAY of our own, the pool opens a fresh connection.
        exhausted: () => this.shut(new StreamError('no stream ids left on the connection', true, true)),
        error: (e) => {
          options.logger.warn('push connection error', { origin, error: e.message });
          this.shut(new StreamError(`connection error: ${e.message}`, false));
        },
        close: () => this.shut(new StreamError('connection closed', false)),
      },
    );
    this.connectTimer = setTimeout(() => {
      this.shut(new StreamError('connection timed out', true));
      this.session.destroy();
    }, options.connectTimeoutMs);
    this.pingTimer = setInterval(() => this.ping(), options.pingIntervalMs);
    this.pingTimer.unref?.();
  }

  /** Requests on this connection: streams open and requests waiting for one. */
  get pending(): number {
    return this.active + this.waiters.length;
  }

  /** Streams open now, the current limit (the server's, or `maxStreams` when lower) and requests waiting, for the pool and tests. */
  get load(): { active: number; limit: number; queued: number } {
    return { active: this.active, limit: this.limit, queued: this.waiters.length };
  }

  /**
   * Sends one request on its own stream, waiting for a free stream slot first.
   * Rejects with a StreamError when the connection fails before the answer is complete.
   */
  async request(headers: RequestHeaders, body: string, timeoutMs: number): Promise<Http2Answer> {
    await this.acquire();
    try {
      return await this.session.request(headers, body, timeoutMs);
    } finally {
      this.active--;
      this.wake();
      if (this.closed && this.active === 0) this.session.close();
    }
  }

  /** Stops new streams and closes once those in flight have finished. */
  close(): void {
    this.shut(new StreamError('connection closing', true));
    if (this.active === 0) this.session.close();
  }

  /** Closes at once; streams in flight fail. */
  destroy(): void {
    this.shut(new StreamError('connection closing', true));
    this.session.destroy();
  }

  private acquire(): Promise<void> {
    if (this.closed) return Promise.reject(new StreamError('connection closed', true));
    if (this.active < this.limit && this.waiters.length === 0) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private wake(): void {
    while (!this.closed && this.waiters.length > 0 && this.active < this.limit) {
      this.active++;
      this.waiters.shift()!.resolve();
    }
  }

  /** A keep-alive PING; one still unanswered when the next is due means the connection is dead. */
  private ping(): void {
    if (this.closed || this.limit === 0) return;
    if (this.pingInFlight) {
      this.options.logger.warn('push connection ping failed', { origin: this.origin, error: 'no answer within the ping interval' });
      this.destroy();
      return;
    }
    this.pingInFlight = true;
    this.session.ping((err) => {
      this.pingInFlight = false;
      if (err && !this.closed) {
        this.options.logger.warn('push connection ping failed', { origin: this.origin, error: err.message });
        this.destroy();
      }
    });
  }

  private shut(reason: StreamError): void {
    if (!this.closed) {
      this.closed = true;
      clearInterval(this.pingTimer);
      clearTimeout(this.connectTimer);
    }
    // Requests still waiting for a stream never reached the server, whatever closed the connection.
    const unsent = reason.unprocessed ? reason : new StreamError(reason.message, true, reason.serverAlive);
    for (const waiter of this.waiters.splice(0)) waiter.reject(unsent);
  }
}
