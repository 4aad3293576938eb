import { afterEach, describe, expect, test } from 'bun:test';
import tls from 'node:tls';
import { ERROR, FLAG, FRAME, FrameReader, frame, settingsFrame, wordsFrame } from '../../lib/http2/frames';
import { literalField } from '../../lib/http2/hpack';
import { StreamError } from '../../lib/http2/stream';
import type { Http2Connection } from '../../modules/delivery/providers/apns/apns.session';
import { until } from '../eventually';
import { testCertificate } from '../tls';
import { connect } from './servers';

const PREFACE = 24;
/** A server that speaks frames by hand, for what real servers will not do on demand. */
async function rawServer(onFrame: (socket: tls.TLSSocket, type: number, flags: number, id: number, payload: Buffer) => void, settings: [number, number][] = []) {
  const server = tls.createServer({ ...testCertificate(), ALPNProtocols: ['h2'] }, (socket) => {
    socket.write(settingsFrame(settings));
    let preface = true;
    let pending = Buffer.alloc(0);
    const reader = new FrameReader(1 << 24, (type, flags, id, payload) => onFrame(socket, type, flags, id, payload));
    socket.on('data', (chunk: Buffer) => {
      if (preface) {
        pending = Buffer.concat([pending, chunk]);
        if (pending.length < PREFACE) return;
        preface = false;
        chunk = pending.subarray(PREFACE);
      }
      reader.push(chunk);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}
/** `:status 200` (static index 8) and the body, ending the stream. */
const answer = (socket: tls.TLSSocket, id: number, body: string) => {
  socket.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, Buffer.from([0x88])));
  socket.write(frame(FRAME.DATA, FLAG.END_STREAM, id, Buffer.from(body)));
};

describe('HTTP/2 client conformance: a raw frame-level server', () => {
  const closing: (() => void)[] = [];
  afterEach(() => {
    for (const close of closing.splice(0)) close();
  });
  const start = async (onFrame: Parameters<typeof rawServer>[0], settings: [number, number][] = [], pingIntervalMs?: number): Promise<Http2Connection> => {
    const { url, server } = await rawServer(onFrame, settings);
    const c = connect(url, { pingIntervalMs });
    closing.push(() => {
      c.destroy();
      server.close();
    });
    await until('the server settings arrived', () => c.load.limit > 0);
    return c;
  };
  const post = (c: Http2Connection, body = 'b') => c.request({ ':method': 'POST', ':path': '/' }, body, 10_000).catch((e: unknown) => e);

  test('GOAWAY with last stream id 3 while streams 1, 3, 5, 7 are open: 1 and 3 still finish; 5 and 7 fail unprocessed with the server alive', async () => {
    const seen: number[] = [];
    const c = await start((socket, type, flags, id) => {
      if (type !== FRAME.DATA || !(flags & FLAG.END_STREAM)) return;
      seen.push(id);
      if (seen.length < 4) return;
      socket.write(wordsFrame(FRAME.GOAWAY, 0, 3, ERROR.NO_ERROR));
      answer(socket, 1, 'one');
      answer(socket, 3, 'three');
    });
    const results = await Promise.all([post(c), post(c), post(c), post(c)]);
    expect(results.slice(0, 2)).toMatchObject([{ status: 200, body: 'one' }, { status: 200, body: 'three' }]);
    for (const r of results.slice(2)) {
      expect(r).toBeInstanceOf(StreamError);
      expect(r).toMatchObject({ message: 'stream not processed before GOAWAY', unprocessed: true, serverAlive: true });
    }
    expect(c.closed).toBe(true);
  });

  test('RST_STREAM REFUSED_STREAM: unprocessed, the server alive; PROTOCOL_ERROR: outcome unknown', async () => {
    const c = await start((socket, type, _flags, id) => {
      if (type === FRAME.HEADERS) socket.write(wordsFrame(FRAME.RST_STREAM, id, id === 1 ? ERROR.REFUSED_STREAM : ERROR.PROTOCOL_ERROR));
    });
    expect(await post(c)).toMatchObject({ message: 'stream refused', unprocessed: true, serverAlive: true });
    expect(await post(c)).toMatchObject({ message: 'stream closed without an answer (code 1)', unprocessed: false, serverAlive: false });
  });

  test('MAX_CONCURRENT_STREAMS 1, raised to 3 by a later SETTINGS: the limit follows, never more open than allowed', async () => {
    // The server answers once as many requests as it allows are open: more would show in `most`.
    let limit = 1;
    let most = 0;
    const open: number[] = [];
    let server: tls.TLSSocket | undefined;
    const c = await start(
      (socket, type, flags, id) => {
        server = socket;
        if (type !== FRAME.DATA || !(flags & FLAG.END_STREAM)) return;
        open.push(id);
        most = Math.max(most, open.length);
        if (open.length >= limit) for (const done of open.splice(0)) answer(socket, done, String(done));
      },
      [[3, 1]],
    );
    expect(c.load.limit).toBe(1);
    expect((await Promise.all([post(c), post(c), post(c)])).map((a) => (a as { body: string }).body)).toEqual(['1', '3', '5']);
    expect(most).toBe(1);
    limit = 3;
    server!.write(settingsFrame([[3, 3]]));
    await until('the raised limit', () => c.load.limit === 3);
    const six = await Promise.all(Array.from({ length: 6 }, () => post(c)));
    expect(six.map((a) => (a as { status: number }).status)).toEqual(Array(6).fill(200));
    expect(most).toBe(3);
  });

  test('a header block split over HEADERS and CONTINUATION, a server PING answered, a window opened 10 bytes at a time', async () => {
    let received = '';
    let pong: Buffer | undefined;
    const c = await start(
      (socket, type, flags, id, payload) => {
        if (type === FRAME.PING && flags & FLAG.ACK) pong = Buffer.from(payload);
        if (type !== FRAME.DATA) return;
        received += payload.toString();
        if (!(flags & FLAG.END_STREAM)) return void socket.write(Buffer.concat([wordsFrame(FRAME.WINDOW_UPDATE, 0, payload.length), wordsFrame(FRAME.WINDOW_UPDATE, id, payload.length)]));
        socket.write(frame(FRAME.PING, 0, 0, Buffer.from('pingpong')));
        const block = Buffer.concat([Buffer.from([0x88]), literalField('x-split', 'a'.repeat(40))]);
        socket.write(frame(FRAME.HEADERS, 0, id, block.subarray(0, 10)));
        socket.write(frame(FRAME.CONTINUATION, FLAG.END_HEADERS, id, block.subarray(10)));
        socket.write(frame(FRAME.DATA, FLAG.END_STREAM, id, Buffer.from(received)));
      },
      [[4, 10]],
    );
    const body = '0123456789'.repeat(10) + 'end';
    const result = (await post(c, body)) as { status: number; headers: Record<string, string>; body: string };
    expect(result).toMatchObject({ status: 200, body, headers: { 'x-split': 'a'.repeat(40) } });
    await until('the PING was answered', () => pong !== undefined);
    expect(pong!.toString()).toBe('pingpong');
  });

  test('the last stream id, 2^31-1: that request is answered, then the connection takes no new stream', async () => {
    const c = await start((socket, type, flags, id) => {
      if (type === FRAME.DATA && flags & FLAG.END_STREAM) answer(socket, id, String(id));
    });
    (c as unknown as { session: { nextId: number } }).session.nextId = 2 ** 31 - 1;
    expect(await post(c)).toMatchObject({ status: 200, body: String(2 ** 31 - 1) });
    expect(c.closed).toBe(true);
    expect(await post(c)).toMatchObject({ unprocessed: true });
  });

  test('a header block that never ends (CONTINUATION over 256 KB) ends the connection instead of filling memory', async () => {
    const c = await start((socket, type, flags, id) => {
      if (type !== FRAME.DATA || !(flags & FLAG.END_STREAM)) return;
      socket.write(frame(FRAME.HEADERS, 0, id, Buffer.from([0x88])));
      for (let i = 0; i < 17; i++) socket.write(frame(FRAME.CONTINUATION, 0, id, Buffer.alloc(16_000, 0x88)));
    });
    expect(await post(c)).toMatchObject({ message: 'stream closed without an answer (code none)', unprocessed: false });
    expect(c.closed).toBe(true);
  });

  test('a server that stops answering PINGs: the connection is closed when the next PING is due, and takes no new stream', async () => {
    let pings = 0;
    const c = await start((_socket, type) => void (type === FRAME.PING && pings++), [], 20);
    await until('the connection gave up', () => c.closed);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(await post(c)).toMatchObject({ unprocessed: true });
  });
});
