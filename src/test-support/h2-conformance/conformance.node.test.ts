import { afterEach, describe, expect, test } from 'bun:test';
import http2, { type Http2SecureServer, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Http2Connection } from '../../modules/delivery/providers/apns/apns.session';
import { until } from '../eventually';
import { testCertificate } from '../tls';
import { connect } from './servers';

/**
 * Islet's HTTP/2 client against a node:http2 server (Bun's implementation, in this process). Not
 * RST_STREAM here: Bun's server, asked to close a stream with REFUSED_STREAM, sends an empty DATA
 * without HEADERS instead (the client fails that stream as a protocol error); the raw and Go
 * servers cover RST_STREAM.
 */
describe('HTTP/2 client conformance: node:http2 server', () => {
  let server: Http2SecureServer | undefined;
  const open: Http2Connection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });
  const start = async (settings: http2.Settings, onStream: (stream: ServerHttp2Stream, body: string) => void): Promise<{ c: Http2Connection; sessions: ServerHttp2Session[] }> => {
    const sessions: ServerHttp2Session[] = [];
    server = http2.createSecureServer({ ...testCertificate(), settings });
    server.on('session', (s) => sessions.push(s));
    server.on('stream', (stream: ServerHttp2Stream) => {
      stream.on('error', () => {});
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => onStream(stream, Buffer.concat(chunks).toString()));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const c = connect(`https://127.0.0.1:${(server.address() as { port: number }).port}`);
    open.push(c);
    return { c, sessions };
  };
  const echo = (stream: ServerHttp2Stream, body: string) => {
    stream.respond({ ':status': 200 });
    stream.end(body);
  };
  const post = (c: Http2Connection, body: string) => c.request({ ':method': 'POST', ':path': '/' }, body, 10_000);

  test('a 1 KB initial window: a 100 KB body goes out as the server opens it, and comes back whole', async () => {
    const { c } = await start({ initialWindowSize: 1024 }, echo);
    const body = 'n'.repeat(100_000);
    expect((await post(c, body)).body).toBe(body);
  });

  test('MAX_CONCURRENT_STREAMS 3, then 1 mid-connection: the limit follows each SETTINGS', async () => {
    const { c, sessions } = await start({ maxConcurrentStreams: 3 }, echo);
    await until('the first settings', () => c.load.limit === 3);
    expect((await Promise.all([post(c, 'a'), post(c, 'b'), post(c, 'c'), post(c, 'd')])).map((a) => a.body)).toEqual(['a', 'b', 'c', 'd']);
    sessions[0]!.settings({ maxConcurrentStreams: 1 });
    await until('the lowered limit', () => c.load.limit === 1);
    expect((await Promise.all([post(c, 'e'), post(c, 'f')])).map((a) => a.body)).toEqual(['e', 'f']);
  });

  test('GOAWAY: the connection takes no new stream; a request after it is unprocessed', async () => {
    const { c, sessions } = await start({}, echo);
    expect((await post(c, 'before')).body).toBe('before');
    sessions[0]!.goaway(http2.constants.NGHTTP2_NO_ERROR, 1);
    await until('the GOAWAY arrived', () => c.closed);
    expect(await post(c, 'after').catch((e: unknown) => e)).toMatchObject({ unprocessed: true });
  });
});
