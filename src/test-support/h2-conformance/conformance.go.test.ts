import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { H2Connection } from '../../lib/http2/connection';
import { StreamError } from '../../lib/http2/stream';
import type { Http2Connection } from '../../modules/delivery/providers/apns/apns.session';
import { testCertificate } from '../tls';
import { until } from '../eventually';
import { buildGoServer, connect, goServer, type RunningServer } from './servers';

/** Islet's HTTP/2 client (src/lib/http2) against Go's golang.org/x/net/http2 server (go-server/main.go). */
describe("HTTP/2 client conformance: Go's x/net/http2 server", () => {
  beforeAll(() => void buildGoServer(), 120_000);
  let server: RunningServer | undefined;
  const open: { destroy(): void }[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.destroy();
    await server?.stop();
    server = undefined;
  });
  const start = async (flags: string[] = [], options: { maxStreams?: number } = {}): Promise<Http2Connection> => {
    server = await goServer(flags);
    const c = connect(server.url, options);
    open.push(c);
    return c;
  };
  const post = (c: Http2Connection, path: string, body = '', timeoutMs = 10_000) => c.request({ ':method': 'POST', ':path': path, 'content-type': 'application/octet-stream' }, body, timeoutMs);

  test('a body larger than the initial window goes out as the windows open, and a response larger than ours comes back whole', async () => {
    const c = await start();
    const body = 'x'.repeat(300_000);
    const answer = await post(c, '/echo', body);
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(300_000);
    expect(answer.body).toBe(body);
  });

  test('a server that gives a 4 KB stream window and opens it slowly as it reads gets the whole body', async () => {
    const c = await start(['-window', '4096']);
    const answer = await post(c, '/slow', 'y'.repeat(50_000));
    expect(answer).toMatchObject({ status: 200, body: '50000' });
  });

  test('MAX_CONCURRENT_STREAMS 2: eight requests at once, never more than two on the server at a time', async () => {
    const c = await start(['-max-streams', '2']);
    await until('the server settings arrived', () => c.load.limit > 0);
    expect(c.load.limit).toBe(2);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(c, '/hold')));
    expect(answers.map((a) => a.body)).toEqual(Array(8).fill('held'));
    expect((await post(c, '/max')).body).toBe('2');
  });

  test('GOAWAY with streams in flight (graceful shutdown): those at or below its last stream id finish; the connection takes no new stream', async () => {
    const c = await start();
    const held = Array.from({ length: 3 }, () => post(c, '/hold'));
    await until('three streams are open', () => c.load.active === 3);
    const shutdown = await post(c, '/shutdown');
    expect(shutdown.body).toBe('shutting down');
    expect((await Promise.all(held)).map((a) => a.body)).toEqual(['held', 'held', 'held']);
    await until('the connection saw the GOAWAY', () => c.closed);
    const refused = await post(c, '/echo', 'late').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StreamError);
    expect(refused).toMatchObject({ unprocessed: true });
  });

  test('RST_STREAM with INTERNAL_ERROR (a handler that aborts): the stream fails, its outcome unknown (not unprocessed)', async () => {
    const c = await start();
    const error = await post(c, '/abort', 'z').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({ unprocessed: false, message: 'stream closed without an answer (code 2)' });
    expect((await post(c, '/echo', 'after')).body).toBe('after');
  });

  test('a server that stops reading: our DATA stops at its 16 KB window, nothing more is buffered, the request times out and the connection still works', async () => {
    server = await goServer(['-window', '16384']);
    const url = new URL(server.url);
    const settled = Promise.withResolvers<void>();
    const c = new H2Connection({ host: '127.0.0.1', port: Number(url.port), servername: 'localhost', ca: testCertificate().cert }, { settings: () => settled.resolve(), goaway: () => {}, exhausted: () => {}, error: () => {}, close: () => {} });
    open.push(c);
    await settled.promise;
    const stalled = c.request({ ':method': 'POST', ':path': '/stall' }, 's'.repeat(1_000_000), 500).catch((e: unknown) => e);
    await until('the body waits for window', () => [...c.streams.values()].some((s) => s.sendWindow === 0));
    const stream = [...c.streams.values()][0]!;
    expect(stream.sendOffset).toBe(16_384);
    expect(c.socket.bytesWritten).toBeLessThan(16_384 + 4_096);
    const error = await stalled;
    expect(error).toMatchObject({ unprocessed: false, message: 'stream closed without an answer (code 8)' });
    expect(c.blocked.size).toBe(0);
    expect((await c.request({ ':method': 'POST', ':path': '/echo' }, 'still here', 10_000)).body).toBe('still here');
  });
});
