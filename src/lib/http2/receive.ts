import { ConnectionError, DEFAULT_WINDOW, ERROR, FLAG, FRAME, MAX_WINDOW, SETTING, frame, unpadded, wordsFrame } from './frames';

import type { HpackDecoder } from './hpack';
import type { Stream } from './stream';

const MAX_HEADER_BLOCK = 256 * 1024;

/** What frame handling reads and changes of its connection (connection.ts). */
export interface FrameTarget {
  readonly streams: Map<number, Stream>;
  readonly decoder: HpackDecoder;
  readonly events: { settings(maxConcurrentStreams: number | undefined): void };
  continuing: { streamId: number; fragments: Buffer[]; length: number; endStream: boolean } | undefined;
  lastOpened: number;
  peerInitialWindow: number;
  peerMaxFrame: number;
  peerMaxStreams: number | undefined;
  connSendWindow: number;
  connRecvWindow: number;
  connUnacked: number;
  write(buf: Buffer): void;
  flush(): void;
  complete(stream: Stream): void;
  failStream(stream: Stream, code: number | undefined): void;
  pingAnswered(): void;
  goaway(lastStreamId: number, code: number): void;
}

/** Frames from the server, one at a time, in the order they came (RFC 9113 §6). */
export function onFrame(c: FrameTarget, type: number, flags: number, id: number, payload: Buffer): void {
  if (c.continuing && type !== FRAME.CONTINUATION) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'a header block was cut by another frame');
  switch (type) {
    case FRAME.DATA:
      return data(c, flags, id, payload);
    case FRAME.HEADERS: {
      if (id === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
      let fragment = unpadded(flags, payload);
      if (flags & FLAG.PRIORITY) fragment = fragment.subarray(5);
      const endStream = (flags & FLAG.END_STREAM) !== 0;
      if (flags & FLAG.END_HEADERS) return headerBlock(c, id, fragment, endStream);
      c.continuing = { streamId: id, fragments: [Buffer.from(fragment)], length: fragment.length, endStream };
      return;
    }
    case FRAME.CONTINUATION: {
      const continuing = c.continuing;
      if (!continuing || continuing.streamId !== id) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'CONTINUATION without its HEADERS');
      continuing.fragments.push(Buffer.from(payload));
      continuing.length += payload.length;
      // Our header lists are small: a server that keeps a block going is cut off, not buffered.
      if (continuing.length > MAX_HEADER_BLOCK) throw new ConnectionError(ERROR.PROTOCOL_ERROR, `header block over ${MAX_HEADER_BLOCK} bytes`);
      if (!(flags & FLAG.END_HEADERS)) return;
      c.continuing = undefined;
      return headerBlock(c, id, Buffer.concat(continuing.fragments), continuing.endStream);
    }
    case FRAME.RST_STREAM: {
      if (id === 0 || payload.length !== 4) throw new ConnectionError(id === 0 ? ERROR.PROTOCOL_ERROR : ERROR.FRAME_SIZE_ERROR, 'bad RST_STREAM');
      const stream = c.streams.get(id);
      if (stream) c.failStream(stream, payload.readUInt32BE(0));
      return;
    }
    case FRAME.SETTINGS:
      return settings(c, flags, id, payload);
    case FRAME.PUSH_PROMISE:
      throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'PUSH_PROMISE though we disabled push');
    case FRAME.PING:
      if (id !== 0 || payload.length !== 8) throw new ConnectionError(id !== 0 ? ERROR.PROTOCOL_ERROR : ERROR.FRAME_SIZE_ERROR, 'bad PING');
      if (flags & FLAG.ACK) c.pingAnswered();
      else c.write(frame(FRAME.PING, FLAG.ACK, 0, payload));
      return;
    case FRAME.GOAWAY:
      if (id !== 0 || payload.length < 8) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'bad GOAWAY');
      return c.goaway(payload.readUInt32BE(0) & 0x7fffffff, payload.readUInt32BE(4));
    case FRAME.WINDOW_UPDATE:
      return windowUpdate(c, id, payload);
    default:
      // PRIORITY and frame types we do not know are ignored (RFC 9113 §5.5).
      return;
  }
}

function data(c: FrameTarget, flags: number, id: number, payload: Buffer): void {
  if (id === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
  if (id > c.lastOpened || id % 2 === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, `DATA on stream ${id}, never opened`);
  // The whole payload, padding included, counts against the windows (RFC 9113 §6.9.1).
  const size = payload.length;
  c.connRecvWindow -= size;
  if (c.connRecvWindow < 0) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'DATA over the connection window');
  c.connUnacked += size;
  if (c.connUnacked >= DEFAULT_WINDOW / 2) {
    c.write(wordsFrame(FRAME.WINDOW_UPDATE, 0, c.connUnacked));
    c.connRecvWindow += c.connUnacked;
    c.connUnacked = 0;
  }
  const stream = c.streams.get(id);
  if (!stream) return;
  const body = unpadded(flags, payload);
  stream.recvWindow -= size;
  if (stream.recvWindow < 0) {
    c.write(wordsFrame(FRAME.RST_STREAM, id, ERROR.FLOW_CONTROL_ERROR));
    return c.failStream(stream, ERROR.FLOW_CONTROL_ERROR);
  }
  if (!stream.answered) {
    c.write(wordsFrame(FRAME.RST_STREAM, id, ERROR.PROTOCOL_ERROR));
    return c.failStream(stream, ERROR.PROTOCOL_ERROR);
  }
  if (body.length > 0) stream.chunks.push(Buffer.from(body));
  if (flags & FLAG.END_STREAM) return c.complete(stream);
  stream.unacked += size;
  if (stream.unacked >= DEFAULT_WINDOW / 2) {
    c.write(wordsFrame(FRAME.WINDOW_UPDATE, id, stream.unacked));
    stream.recvWindow += stream.unacked;
    stream.unacked = 0;
  }
}

/** A whole header block: always decoded (it changes the HPACK table), kept when its stream is open. */
function headerBlock(c: FrameTarget, id: number, block: Buffer, endStream: boolean): void {
  const stream = c.streams.get(id);
  if (!stream || stream.answered) {
    // A closed stream's, or trailers: decoded for the table's sake only.
    c.decoder.decode(block, () => {});
    if (stream && endStream) c.complete(stream);
    return;
  }
  stream.headers = {};
  c.decoder.decode(block, (name, value) => stream.header(name, value));
  // 1xx answers are informational; the final one follows (RFC 9113 §8.1).
  if (stream.status >= 200) stream.answered = true;
  else if (!(stream.status >= 100)) {
    c.write(wordsFrame(FRAME.RST_STREAM, id, ERROR.PROTOCOL_ERROR));
    return c.failStream(stream, ERROR.PROTOCOL_ERROR);
  }
  if (endStream) c.complete(stream);
}

function settings(c: FrameTarget, flags: number, id: number, payload: Buffer): void {
  if (id !== 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
  if (flags & FLAG.ACK) return;
  if (payload.length % 6 !== 0) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'SETTINGS length not a multiple of 6');
  for (let offset = 0; offset < payload.length; offset += 6) {
    const value = payload.readUInt32BE(offset + 2);
    switch (payload.readUInt16BE(offset)) {
      case SETTING.MAX_CONCURRENT_STREAMS:
        c.peerMaxStreams = value;
        break;
      case SETTING.INITIAL_WINDOW_SIZE: {
        if (value > MAX_WINDOW) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'initial window over 2^31-1');
        // A new initial window moves every open stream's window by the difference (RFC 9113 §6.9.2).
        const delta = value - c.peerInitialWindow;
        c.peerInitialWindow = value;
        for (const stream of c.streams.values()) stream.sendWindow += delta;
        break;
      }
      case SETTING.MAX_FRAME_SIZE:
        if (value < 16_384 || value > 16_777_215) throw new ConnectionError(ERROR.PROTOCOL_ERROR, `max frame size ${value}`);
        c.peerMaxFrame = value;
        break;
      default:
      // HEADER_TABLE_SIZE bounds a dynamic table our encoder never uses; the rest do not concern a client.
    }
  }
  c.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
  c.events.settings(c.peerMaxStreams);
  c.flush();
}

function windowUpdate(c: FrameTarget, id: number, payload: Buffer): void {
  if (payload.length !== 4) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR, 'bad WINDOW_UPDATE');
  const increment = payload.readUInt32BE(0) & 0x7fffffff;
  if (id === 0) {
    if (increment === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
    c.connSendWindow += increment;
    if (c.connSendWindow > MAX_WINDOW) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR, 'connection window over 2^31-1');
  } else {
    const stream = c.streams.get(id);
    if (!stream) return;
    stream.sendWindow += increment;
    if (increment === 0 || stream.sendWindow > MAX_WINDOW) {
      const code = increment === 0 ? ERROR.PROTOCOL_ERROR : ERROR.FLOW_CONTROL_ERROR;
      c.write(wordsFrame(FRAME.RST_STREAM, id, code));
      return c.failStream(stream, code);
    }
  }
  c.flush();
}
