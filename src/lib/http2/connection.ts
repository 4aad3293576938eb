import tls, { type TLSSocket } from 'node:tls';
import { CLIENT_PREFACE, ConnectionError, DEFAULT_MAX_FRAME, DEFAULT_WINDOW, ERROR, FLAG, FRAME, FRAME_HEADER, FrameReader, MAX_WINDOW, SETTING, frame, settingsFrame, wordsFrame, writeFrameHeader } from './frames';
import { HpackDecoder } from './hpack';
import { RequestEncoder, type RequestHeaders } from './request-encoder';
import { Stream, StreamError, type Http2Answer } from './stream';
import { onFrame, type FrameTarget } from './receive';
import { WriteBatch } from './write-batch';

export interface H2Target {
  host: string;
  port: number;
  /** TLS server name (SNI and the certificate check). */
  servername: string;
  ca?: string;
  lookup?: tls.ConnectionOptions['lookup'];
}

export interface H2Events {
  /** Each SETTINGS from the server: its MAX_CONCURRENT_STREAMS so far (undefined: never sent). */
  settings(maxConcurrentStreams: number | undefined): void;
  goaway(lastStreamId: number, code: number): void;
  /** The last stream id (2^31-1) is taken: open no more streams here (in-flight ones finish). */
  exhausted(): void;
  /** The connection failed (socket, TLS, protocol); `close` follows. */
  error(error: Error): void;
  close(): void;
}

/** The receive windows we keep open for the server: the defaults, replenished at half. */
const RECV_WINDOW = DEFAULT_WINDOW;

/**
 * A client HTTP/2 connection over TLS (ALPN h2) for one origin, made for many small requests: each
 * request's frames (HEADERS, CONTINUATION when needed, its DATA when the windows allow) are written
 * straight into the batch of this turn (write-batch.ts), one deadline timer serves all streams,
 * no per-stream emitter. It honours the server's flow-control windows and frame size, gives back
 * the server's DATA with WINDOW_UPDATE, answers PING and SETTINGS, and fails streams the way
 * RFC 9113 says they ended (refused, above a GOAWAY's last stream id: unprocessed). Stream limits
 * are the caller's: `settings` reports MAX_CONCURRENT_STREAMS.
 */
export class H2Connection implements FrameTarget {
  readonly socket: TLSSocket;
  readonly streams = new Map<number, Stream>();
  readonly decoder = new HpackDecoder();
  private readonly encoder: RequestEncoder;
  private readonly reader: FrameReader;
  private nextId = 1;
  /** Highest stream id we opened (frames for others are the server's mistake). */
  lastOpened = 0;
  /** The server's settings and windows. */
  peerInitialWindow = DEFAULT_WINDOW;
  peerMaxFrame = DEFAULT_MAX_FRAME;
  peerMaxStreams: number | undefined;
  connSendWindow = DEFAULT_WINDOW;
  connRecvWindow = RECV_WINDOW;
  connUnacked = 0;
  /** Streams with body left to send, waiting for window. */
  readonly blocked = new Set<Stream>();
  goawayLastId: number | undefined;
  /** A header block being continued: its stream, fragments so far, END_STREAM. */
  continuing: { streamId: number; fragments: Buffer[]; length: number; endStream: boolean } | undefined;
  private readonly pings: ((error?: Error) => void)[] = [];
  private ended = false;
  private readonly batch = new WriteBatch((bytes) => {
    if (!this.ended) this.socket.write(bytes);
  });
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  constructor(
    target: H2Target,
    readonly events: H2Events,
  ) {
    const defaultPort = target.port === 443;
    this.encoder = new RequestEncoder(defaultPort ? target.host : `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`);
    this.reader = new FrameReader(DEFAULT_MAX_FRAME, (type, flags, id, payload) => onFrame(this, type, flags, id, payload));
    this.socket = tls.connect({ host: target.host, port: target.port, servername: target.servername, ca: target.ca ? [target.ca] : undefined, ALPNProtocols: ['h2'], ...(target.lookup ? { lookup: target.lookup } : {}) });
    this.socket.setNoDelay?.(true);
    this.socket.once('secureConnect', () => {
      if (this.socket.alpnProtocol !== 'h2') return this.fail(new Error(`the server did not agree to HTTP/2 (ALPN ${this.socket.alpnProtocol || 'none'})`));
      this.socket.write(Buffer.concat([CLIENT_PREFACE, settingsFrame([[SETTING.ENABLE_PUSH, 0]])]));
    });
    this.socket.on('data', (chunk: Buffer) => {
      try {
        this.reader.push(chunk);
      } catch (e) {
        if (e instanceof ConnectionError) this.protocolError(e);
        else this.fail(e as Error);
      }
    });
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.end());
  }

  /** Opens a stream for this request now: after the first `settings` event, within the server's stream limit (the caller keeps both). */
  request(headers: RequestHeaders, body: string, timeoutMs: number): Promise<Http2Answer> {
    return new Promise((resolve, reject) => {
      if (this.ended || this.nextId > MAX_WINDOW) return reject(new StreamError('connection closed', true));
      const id = this.nextId;
      this.nextId += 2;
      this.lastOpened = id;
      const stream = new Stream(id, this.peerInitialWindow, RECV_WINDOW, resolve, reject);
      this.streams.set(id, stream);
      stream.deadline = performance.now() + timeoutMs;
      if (stream.deadline < this.timerAt) this.arm(stream.deadline);
      this.requestFrames(stream, headers, body);
      if (this.nextId > MAX_WINDOW) this.events.exhausted();
    });
  }

  /** HEADERS (+ CONTINUATION) and as much of the body as the windows allow, into the batch of this turn. */
  private requestFrames(stream: Stream, headers: RequestHeaders, body: string): void {
    const blockLength = this.encoder.measure(headers);
    const bodyLength = body.length === 0 ? 0 : Buffer.byteLength(body);
    const max = this.peerMaxFrame;
    const headerFrames = Math.max(1, Math.ceil(blockLength / max));
    const inline = bodyLength > 0 && bodyLength <= Math.min(max, this.connSendWindow, stream.sendWindow);
    const buf = this.batch.reserve(headerFrames * FRAME_HEADER + blockLength + (inline ? FRAME_HEADER + bodyLength : 0));
    let offset = this.batch.end;
    const endStream = bodyLength === 0 ? FLAG.END_STREAM : 0;
    if (headerFrames === 1) {
      offset = writeFrameHeader(buf, offset, blockLength, FRAME.HEADERS, FLAG.END_HEADERS | endStream, stream.id);
      offset = this.encoder.write(buf, offset);
    } else {
      // A block over the server's frame size: HEADERS, then CONTINUATION frames (RFC 9113 §6.10).
      const block = Buffer.allocUnsafe(blockLength);
      this.encoder.write(block, 0);
      for (let start = 0; start < blockLength; start += max) {
        const end = Math.min(blockLength, start + max);
        const flags = start === 0 ? endStream : 0;
        offset = writeFrameHeader(buf, offset, end - start, start === 0 ? FRAME.HEADERS : FRAME.CONTINUATION, flags | (end === blockLength ? FLAG.END_HEADERS : 0), stream.id);
        offset += block.copy(buf, offset, start, end);
      }
    }
    if (inline) {
      offset = writeFrameHeader(buf, offset, bodyLength, FRAME.DATA, FLAG.END_STREAM, stream.id);
      offset += buf.write(body, offset, 'utf8');
      this.connSendWindow -= bodyLength;
      stream.sendWindow -= bodyLength;
    } else if (bodyLength > 0) {
      stream.pending = Buffer.from(body, 'utf8');
      this.blocked.add(stream);
      queueMicrotask(() => this.flush());
    }
    this.batch.end = offset;
  }

  /** Sends what blocked bodies the windows now allow, in the order the streams opened. */
  flush(): void {
    for (const stream of this.blocked) {
      const pending = stream.pending!;
      while (stream.sendOffset < pending.length && this.connSendWindow > 0 && stream.sendWindow > 0) {
        const n = Math.min(pending.length - stream.sendOffset, this.connSendWindow, stream.sendWindow, this.peerMaxFrame);
        const last = stream.sendOffset + n === pending.length;
        const buf = Buffer.allocUnsafe(FRAME_HEADER + n);
        writeFrameHeader(buf, 0, n, FRAME.DATA, last ? FLAG.END_STREAM : 0, stream.id);
        pending.copy(buf, FRAME_HEADER, stream.sendOffset, stream.sendOffset + n);
        this.write(buf);
        stream.sendOffset += n;
        this.connSendWindow -= n;
        stream.sendWindow -= n;
      }
      if (stream.sendOffset === pending.length) {
        stream.pending = undefined;
        this.blocked.delete(stream);
      }
      if (this.connSendWindow <= 0) return;
    }
  }

  /** One timer per connection, at the earliest deadline of its streams: those past theirs are cancelled. */
  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.sweep, Math.max(0, at - performance.now()) + 1);
    this.timer.unref?.();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const stream of this.streams.values()) {
      if (stream.deadline <= now) this.cancel(stream);
      else next = Math.min(next, stream.deadline);
    }
    if (next < Infinity && !this.ended) this.arm(next);
  };

  /** Sends a PING; `done` is called with its ACK, or with an error when the connection ends first. */
  ping(done: (error?: Error) => void): void {
    if (this.ended) return done(new Error('connection closed'));
    this.pings.push(done);
    this.write(frame(FRAME.PING, 0, 0, Buffer.alloc(8)));
  }

  pingAnswered(): void {
    this.pings.shift()?.();
  }

  write(buf: Buffer): void {
    if (this.ended) return;
    this.batch.flush();
    this.socket.write(buf);
  }

  /** The stream ended with the server's END_STREAM: its answer, or a failure when no final headers came. */
  complete(stream: Stream): void {
    this.forget(stream);
    // The server answered before reading our whole body: tell it we stop sending (RFC 9113 §8.1).
    if (stream.pending) this.write(wordsFrame(FRAME.RST_STREAM, stream.id, ERROR.NO_ERROR));
    if (stream.answered) stream.resolve({ status: stream.status, headers: stream.headers, body: stream.body() });
    else this.failStream(stream, undefined);
  }

  /** Fails a stream that ended without a whole answer; `code` is the RST_STREAM's error code. */
  failStream(stream: Stream, code: number | undefined): void {
    this.forget(stream);
    const refused = code === ERROR.REFUSED_STREAM;
    // Without an answer, a refused stream or one above the GOAWAY's last stream id was not
    // processed by the server; any other stream cut short has an unknown outcome.
    const aboveGoaway = this.goawayLastId !== undefined && stream.id > this.goawayLastId;
    const unprocessed = !stream.answered && (refused || aboveGoaway);
    const message = refused ? 'stream refused' : aboveGoaway ? 'stream not processed before GOAWAY' : `stream closed without an answer (code ${code ?? 'none'})`;
    stream.reject(new StreamError(message, unprocessed, unprocessed));
  }

  private forget(stream: Stream): void {
    this.streams.delete(stream.id);
    if (stream.pending) this.blocked.delete(stream);
  }

  private cancel(stream: Stream): void {
    if (!this.streams.has(stream.id)) return;
    this.write(wordsFrame(FRAME.RST_STREAM, stream.id, ERROR.CANCEL));
    this.failStream(stream, ERROR.CANCEL);
  }

  /** A GOAWAY from the server: streams above its last id fail as unprocessed, the rest finish. */
  goaway(lastStreamId: number, code: number): void {
    this.goawayLastId = Math.min(lastStreamId, this.goawayLastId ?? lastStreamId);
    for (const stream of [...this.streams.values()]) if (stream.id > this.goawayLastId) this.failStream(stream, undefined);
    this.events.goaway(this.goawayLastId, code);
  }

  /** Our own GOAWAY for a protocol error, then the connection ends. */
  protocolError(e: ConnectionError): void {
    this.write(wordsFrame(FRAME.GOAWAY, 0, this.lastOpened, e.code));
    this.fail(new Error(`${e.message} (HTTP/2 error ${e.code})`));
  }

  /** Ends gracefully: GOAWAY, then the socket's end (streams still open fail). */
  close(): void {
    this.write(wordsFrame(FRAME.GOAWAY, 0, 0, ERROR.NO_ERROR));
    this.socket.end();
    this.end();
  }

  destroy(): void {
    this.socket.destroy();
    this.end();
  }

  private fail(error: Error): void {
    if (!this.ended) this.events.error(error);
    this.socket.destroy();
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    for (const stream of [...this.streams.values()]) this.failStream(stream, undefined);
    for (const done of this.pings.splice(0)) done(new Error('connection closed'));
    this.events.close();
  }
}
