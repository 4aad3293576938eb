/** HTTP/2 frame types, flags, settings and error codes (RFC 9113 §6, §7), and the frame layout. */
export const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
export const SETTING = { HEADER_TABLE_SIZE: 1, ENABLE_PUSH: 2, MAX_CONCURRENT_STREAMS: 3, INITIAL_WINDOW_SIZE: 4, MAX_FRAME_SIZE: 5, MAX_HEADER_LIST_SIZE: 6 } as const;
export const ERROR = { NO_ERROR: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2, FLOW_CONTROL_ERROR: 3, STREAM_CLOSED: 5, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, CANCEL: 8, COMPRESSION_ERROR: 9 } as const;

export const FRAME_HEADER = 9;
/** Flow-control windows and the frame size every connection starts with (RFC 9113 §6.5.2, §6.9.2). */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_WINDOW = 2 ** 31 - 1;
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** A problem that ends the whole connection with GOAWAY and this error code (RFC 9113 §5.4.1). */
export class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Writes a frame header at `offset`; returns the offset after it. */
export function writeFrameHeader(buf: Buffer, offset: number, length: number, type: number, flags: number, streamId: number): number {
  buf[offset] = length >>> 16;
  buf[offset + 1] = (length >>> 8) & 0xff;
  buf[offset + 2] = length & 0xff;
  buf[offset + 3] = type;
  buf[offset + 4] = flags;
  buf[offset + 5] = streamId >>> 24;
  buf[offset + 6] = (streamId >>> 16) & 0xff;
  buf[offset + 7] = (streamId >>> 8) & 0xff;
  buf[offset + 8] = streamId & 0xff;
  return offset + FRAME_HEADER;
}

/** One whole frame in a new buffer (control frames: small and rare). */
export function frame(type: number, flags: number, streamId: number, payload?: Buffer): Buffer {
  const length = payload?.length ?? 0;
  const buf = Buffer.allocUnsafe(FRAME_HEADER + length);
  writeFrameHeader(buf, 0, length, type, flags, streamId);
  if (payload) payload.copy(buf, FRAME_HEADER);
  return buf;
}

/** A frame whose payload is 32-bit words (RST_STREAM, WINDOW_UPDATE, GOAWAY). */
export function wordsFrame(type: number, streamId: number, ...words: number[]): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 4 * words.length);
  writeFrameHeader(buf, 0, 4 * words.length, type, 0, streamId);
  for (let i = 0; i < words.length; i++) buf.writeUInt32BE(words[i]! >>> 0, FRAME_HEADER + 4 * i);
  return buf;
}

export function settingsFrame(settings: [id: number, value: number][]): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FRAME.SETTINGS, 0, 0, payload);
}

/**
 * Cuts a byte stream into frames: `onFrame(type, flags, streamId, payload)` per whole frame, the
 * payload a view into the received bytes (valid during the call). Frames over `maxFrameSize` (what
 * we advertised) are a FRAME_SIZE_ERROR.
 */
export class FrameReader {
  private rest: Buffer | undefined;

  constructor(
    private readonly maxFrameSize: number,
    private readonly onFrame: (type: number, flags: number, streamId: number, payload: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = undefined;
    let offset = 0;
    while (buf.length - offset >= FRAME_HEADER) {
      const length = (buf[offset]! << 16) | (buf[offset + 1]! << 8) | buf[offset + 2]!;
      if (length > this.maxFrameSize) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, `frame of ${length} bytes is over ${this.maxFrameSize}`);
      const end = offset + FRAME_HEADER + length;
      if (end > buf.length) break;
      const streamId = buf.readUInt32BE(offset + 5) & 0x7fffffff;
      this.onFrame(buf[offset + 3]!, buf[offset + 4]!, streamId, buf.subarray(offset + FRAME_HEADER, end));
      offset = end;
    }
    if (offset < buf.length) this.rest = Buffer.from(buf.subarray(offset));
  }
}

/** The payload without its padding (PADDED flag: a length byte first, that many bytes at the end). */
export function unpadded(flags: number, payload: Buffer): Buffer {
  if (!(flags & FLAG.PADDED)) return payload;
  if (payload.length < 1 || payload[0]! >= payload.length) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
  return payload.subarray(1, payload.length - payload[0]!);
}
