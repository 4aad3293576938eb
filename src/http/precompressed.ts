import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** A static response body held in memory as is and compressed once, ahead of any request. */
export interface Precompressed {
  type: string;
  cacheControl: string;
  /** The representations, by content coding; a coding is left out when it would not be smaller. */
  bodies: Partial<Record<'br' | 'gzip', Uint8Array<ArrayBuffer>>> & { identity: Uint8Array<ArrayBuffer> };
  /** Hash of the identity body: the ETag of each representation is derived from it. */
  hash: string;
}

/**
 * Compresses `body` with brotli (best quality) and gzip, off the event loop (zlib's thread pool):
 * it is done once per asset, so every later request costs a lookup, not a compression.
 */
export async function precompress(body: Uint8Array<ArrayBuffer> | string, type: string, cacheControl: string): Promise<Precompressed> {
  const identity = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzipAsync(identity, { level: 9 }),
  ]);
  const bodies: Precompressed['bodies'] = { identity };
  if (br.length < identity.length) bodies.br = new Uint8Array(br);
  if (gz.length < identity.length) bodies.gzip = new Uint8Array(gz);
  return { type, cacheControl, bodies, hash: createHash('sha256').update(identity).digest('base64url').slice(0, 22) };
}

/**
 * The response to a GET or HEAD of `asset`: brotli or gzip when the client accepts it (brotli
 * first), else the plain body; every coding has its own strong ETag, and an If-None-Match naming
 * the chosen one gets a 304 without a body.
 */
export function servePrecompressed(request: Request, asset: Precompressed): Response {
  const coding = chooseCoding(request.headers.get('accept-encoding'), asset);
  const etag = coding === 'identity' ? `"${asset.hash}"` : `"${asset.hash}-${coding}"`;
  const headers: Record<string, string> = { 'content-type': asset.type, 'cache-control': asset.cacheControl, etag, vary: 'accept-encoding' };
  if (coding !== 'identity') headers['content-encoding'] = coding;
  if (matches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
  const body = asset.bodies[coding]!;
  headers['content-length'] = String(body.length);
  return new Response(request.method === 'HEAD' ? null : body, { headers });
}

/** The preferred coding among those `asset` has that Accept-Encoding allows (q > 0, `*` included). */
function chooseCoding(acceptEncoding: string | null, asset: Precompressed): 'br' | 'gzip' | 'identity' {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim());
    if (!name) continue;
    const q = params.find((p) => p.startsWith('q='));
    weights.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const allowed = (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (asset.bodies.br && allowed('br')) return 'br';
  if (asset.bodies.gzip && allowed('gzip')) return 'gzip';
  return 'identity';
}

/** If-None-Match: `*` or a list of entity tags, compared weakly (a W/ prefix is ignored). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
