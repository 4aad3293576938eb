import http2, { type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { isIP } from 'node:net';
import type { Logger } from '../../../../lib/logger';
import type { guardedLookup } from '../../../../lib/outbound-policy';

export interface SessionOptions {
  /** Extra trusted CA (PEM) for a non-Apple endpoint. */
  ca?: string;
  /** Real time between keep-alive PINGs; a PING that fails closes the session. */
  pingIntervalMs: number;
  /** Real time to wait for the server's SETTINGS before giving up on the connection. */
  connectTimeoutMs: number;
  /** Streams at most, even when the server allows more. */
  maxStreams?: number;
  /** Name resolution for the connection (the outbound policy's guarded lookup). */
  lookup?: ReturnType<typeof guardedLookup>;
  logger: Logger;
}

export interface Http2Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A stream that failed. `unprocessed`: the server certainly did not act on it (safe to resend);
 * `serverAlive`: the server itself said so (GOAWAY, a refused stream), so a fresh connection is
 * worth trying at once, unlike after a connection that could not be made.
 */
export class StreamError extends Error {
  constructor(
    message: string,
    readonly unprocessed: boolean,
    readonly serverAlive = false,
  ) {
    super(message);
  }
}

/**
 * One long-lived HTTP/2 connection to a push endpoint. It opens at most as many streams as the
 * server's SETTINGS allow (APNs starts low and changes the limit; a stream over it is refused),
 * queues the rest, keeps the connection alive with PINGs, and stops taking new streams on GOAWAY
 * or error so the pool opens a fresh one while the streams in flight finish.
 */
export class Http2Connection {
  private readonly session: ClientHttp2Session;
  private active = 0;
  private limit = 0;
  private readonly waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly pingTimer: ReturnType<typeof setInterval>;
  private readonly connectTimer: ReturnType<typeof setTimeout>;
  /** The GOAWAY's last stream id: streams above it were never processed (RFC 9113 §6.8). */
  private lastStreamId: number | undefined;
  /** True once no new stream may start here. */
  closed = false;

  constructor(
    readonly origin: string,
    private readonly options: SessionOptions,
  ) {
    const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
    // TLS has no server name for an IP address: use localhost, which test certificates carry.
    const session = http2.connect(origin, {
      ca: options.ca ? [options.ca] : undefined,
      servername: isIP(host) ? 'localhost' : host,
      ...(options.lookup ? { lookup: options.lookup as never } : {}),
    });
    this.session = session;
    session.on('remoteSettings', (settings) => {
      clearTimeout(this.connectTimer);
      this.limit = Math.min(settings.maxConcurrentStreams ?? 1000, options.maxStreams ?? Infinity);
      this.wake();
    });
    session.on('goaway', (_code: number, lastStreamId: number) => {
      this.lastStreamId = Number.isInteger(lastStreamId) ? lastStreamId : 0;
      this.shut(new StreamError('the server sent GOAWAY', true, true));
    });
    session.on('error', (e) => {
      options.logger.warn('push connection error', { origin, error: e.message });
      this.shut(new StreamError(`connection error: ${e.message}`, false));
    });
    session.on('close', () => this.shut(new StreamError('connection closed', false)));
    this.connectTimer = setTimeout(() => {
      this.shut(new StreamError('connection timed out', true));
      session.destroy();
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
  async request(headers: OutgoingHttpHeaders, body: string, timeoutMs: number): Promise<Http2Answer> {
    await this.acquire();
    try {
      return await this.exchange(headers, body, timeoutMs);
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

  private exchange(headers: OutgoingHttpHeaders, body: string, timeoutMs: number): Promise<Http2Answer> {
    return new Promise((resolve, reject) => {
      let answered = false;
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.session.request(headers);
      } catch (e) {
        reject(new StreamError(`stream not opened: ${(e as Error).message}`, true));
        return;
      }
      let status = 0;
      let responseHeaders: Http2Answer['headers'] = {};
      const chunks: Buffer[] = [];
      // A timer of our own: Bun's stream.setTimeout adds a listener to the whole session per stream.
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), timeoutMs);
      stream.on('response', (h) => {
        answered = true;
        status = Number(h[':status']);
        responseHeaders = h as Http2Answer['headers'];
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (answered) resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('close', () => {
        clearTimeout(timer);
        if (answered && stream.readableEnded) return;
        const code = stream.rstCode;
        const refused = code === http2.constants.NGHTTP2_REFUSED_STREAM;
        // Without an answer, a refused stream or one above the GOAWAY's last stream id was not
        // processed by the server; any other stream cut short has an unknown outcome.
        const aboveGoaway = this.lastStreamId !== undefined && (stream.id === undefined || stream.id > this.lastStreamId);
        const unprocessed = !answered && (refused || aboveGoaway);
        const message = refused ? 'stream refused' : aboveGoaway ? 'stream not processed before GOAWAY' : `stream closed without an answer (code ${code ?? 'none'})`;
        reject(new StreamError(message, unprocessed, unprocessed));
      });
      stream.on('error', () => {
        // 'close' follows and decides.
      });
      stream.end(body);
    });
  }

  private ping(): void {
    if (this.closed || this.limit === 0) return;
    try {
      this.session.ping((err) => {
        if (err) {
          this.options.logger.warn('push connection ping failed', { origin: this.origin, error: err.message });
          this.destroy();
        }
      });
    } catch {
      this.destroy();
    }
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
