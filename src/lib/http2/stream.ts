/** The answer to one request: status, response headers (`:status` included, repeated names as arrays), body. */
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

/** One request's stream: what is left to send, what came back, and how it ends. */
export class Stream {
  status = 0;
  /** True once the final (non-1xx) response headers came. */
  answered = false;
  headers: Http2Answer['headers'] = {};
  chunks: Buffer[] = [];
  /** What the server's window lets us send on this stream (RFC 9113 §6.9). */
  sendWindow: number;
  /** Request body not sent yet, from `sendOffset`; undefined once END_STREAM went out. */
  pending: Buffer | undefined;
  sendOffset = 0;
  /** DATA bytes received and not yet given back with a WINDOW_UPDATE; what the server may still send. */
  unacked = 0;
  recvWindow: number;
  /** When it is cancelled without an answer (performance.now() time). */
  deadline = Infinity;

  constructor(
    readonly id: number,
    sendWindow: number,
    recvWindow: number,
    readonly resolve: (answer: Http2Answer) => void,
    readonly reject: (error: StreamError) => void,
  ) {
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  header(name: string, value: string): void {
    if (name === ':status') this.status = Number(value);
    const previous = this.headers[name];
    if (previous === undefined) this.headers[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else this.headers[name] = [previous, value];
  }

  body(): string {
    return this.chunks.length === 0 ? '' : this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
  }
}
