import { connect } from 'node:net';

export interface RawAnswer {
  /** Status of the first answer, or undefined when the server closed without one. */
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Everything received, as text. */
  text: string;
  /** True when the server closed the connection (false: we stopped waiting). */
  closed: boolean;
  ms: number;
}

/**
 * Sends bytes exactly as given over a fresh TCP connection and collects the first answer: what
 * `fetch` cannot send (malformed request lines, oversize headers, bad chunking, CONNECT, slow
 * bodies). `parts` are written one after another, `gapMs` apart.
 * @example const a = await rawRequest(url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'); a.status // 200
 */
export function rawRequest(url: string, data: string | Uint8Array | (string | Uint8Array)[], options: { gapMs?: number; waitMs?: number } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const parts = Array.isArray(data) ? data : [data];
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1'), closed, performance.now() - started));
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 5000);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const answer = parseAnswer(Buffer.concat(chunks).toString('latin1'), false, 0);
      // A complete answer with a declared length: no need to wait for the close.
      const length = Number(answer.headers['content-length']);
      if (answer.status !== undefined && Number.isFinite(length) && Buffer.byteLength(answer.body, 'latin1') >= length) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && options.gapMs) await Bun.sleep(options.gapMs);
        if (settled) return;
        socket.write(part);
      }
    });
  });
}

function parseAnswer(text: string, closed: boolean, ms: number): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: match ? Number(match[1]) : undefined, headers, body: end === -1 ? '' : text.slice(end + 4), text, closed, ms };
}
