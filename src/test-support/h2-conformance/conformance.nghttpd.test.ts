import { afterEach, describe, expect, test } from 'bun:test';
import type { Http2Connection } from '../../modules/delivery/providers/apns/apns.session';
import { until } from '../eventually';
import { connect, nghttpd, type RunningServer } from './servers';

/**
 * Islet's HTTP/2 client against nghttp2's nghttpd: Huffman-coded and dynamic-table-indexed response
 * headers, padded frames, small windows, a stream limit. (nghttpd cannot send GOAWAY or RST_STREAM
 * on demand nor stop reading: the Go and raw servers cover those.)
 */
describe("HTTP/2 client conformance: nghttp2's nghttpd", () => {
  let server: RunningServer | undefined;
  const open: Http2Connection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.destroy();
    await server?.stop();
    server = undefined;
  });
  const start = async (options: string[], files: Record<string, Buffer> = {}, maxStreams?: number): Promise<Http2Connection> => {
    server = await nghttpd(options, files);
    const c = connect(server.url, { maxStreams });
    open.push(c);
    return c;
  };
  const file = Buffer.alloc(1_000_000, 'f');

  test('responses decode (Huffman, dynamic table across responses), and a 1 MB file comes back through windows we give back', async () => {
    const c = await start([], { big: file, small: Buffer.from('small') });
    for (let i = 0; i < 3; i++) {
      const small = await c.request({ ':method': 'GET', ':path': '/small' }, '', 10_000);
      expect(small).toMatchObject({ status: 200, body: 'small' });
      expect(small.headers.server).toStartWith('nghttpd');
      expect(small.headers['content-length']).toBe('5');
    }
    const big = await c.request({ ':method': 'GET', ':path': '/big' }, '', 10_000);
    expect(big.body.length).toBe(1_000_000);
    expect((await c.request({ ':method': 'GET', ':path': '/nothing' }, '', 10_000)).status).toBe(404);
  });

  test('a 1 KB stream window (-w 10): a 200 KB upload goes out as nghttpd opens them, echoed back whole', async () => {
    const c = await start(['-w', '10', '--echo-upload']);
    const body = 'u'.repeat(200_000);
    const answer = await c.request({ ':method': 'POST', ':path': '/' }, body, 20_000);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(body);
  });

  test('padded frames (-b 255): headers and data arrive without their padding', async () => {
    const c = await start(['-b', '255', '--echo-upload']);
    const answer = await c.request({ ':method': 'POST', ':path': '/' }, 'padded', 10_000);
    expect(answer).toMatchObject({ status: 200, body: 'padded' });
  });

  test('MAX_CONCURRENT_STREAMS 2 (-m 2): the limit is taken, and twenty requests at once all succeed (a stream over it would be refused)', async () => {
    const c = await start(['-m', '2', '--echo-upload']);
    await until('the server settings arrived', () => c.load.limit > 0);
    expect(c.load.limit).toBe(2);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => c.request({ ':method': 'POST', ':path': '/' }, `r${i}`, 10_000)));
    expect(answers.map((a) => a.body)).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
  });
});
