import { HttpError, problemResponse } from '../lib/errors';
import { jsonShapeProblem, type JsonShapeLimits } from './json-shape';

/** The default of `[server] max_body_bytes`. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
/** No API body comes near these; a hostile one is refused before it is parsed. */
export const JSON_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: 32, maxKeys: 1000 };

/** DELETE too: ending a Live Activity takes an optional JSON body (and must work without one). */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `1 KiB`, `64 KiB`, `1.5 MiB`: how limits read in error details. */
const describeBytes = (n: number) => (n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(2)} MiB` : `${+(n / 1024).toFixed(2)} KiB`);

/** True for `application/json` with or without parameters (`; charset=utf-8`), and nothing else. */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return contentType.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

const tooLarge = (maxBytes: number) => new HttpError(413, `request body exceeds ${describeBytes(maxBytes)}`);

/**
 * Checks a request before its body is read: a declared length over the limit is 413, and a body
 * that is not declared as `application/json` is 415 (the API speaks only JSON; a form-encoded body
 * would otherwise surface as a confusing validation error). Returns the error response, or undefined.
 */
export function checkRequestBody(request: Request, maxBytes: number): Response | undefined {
  if (!WITH_BODY.has(request.method)) return undefined;
  const length = request.headers.get('content-length');
  if (length !== null && Number(length) > maxBytes) {
    const error = tooLarge(maxBytes);
    return problemResponse(error.status, error.detail);
  }
  const hasBody = length !== null ? length !== '0' : request.body !== null;
  if (hasBody && !isJsonMediaType(request.headers.get('content-type'))) {
    return problemResponse(415, 'Content-Type must be application/json');
  }
  return undefined;
}

/**
 * Reads a JSON body under the limits: counted as it streams in (a chunked body has no declared
 * length), measured for depth and keys before it is parsed, and decoded as strict UTF-8.
 * Throws an HttpError (413 or 400) naming what was wrong.
 */
export async function readJsonBody(request: Request, maxBytes: number, shape: JsonShapeLimits = JSON_SHAPE_LIMITS): Promise<unknown> {
  const bytes = await readLimited(request, maxBytes);
  // An empty body is no body (clients often send the JSON content type on every request): a route
  // that needs one answers that its body must be a JSON object.
  if (bytes.length === 0) return undefined;
  const problem = jsonShapeProblem(bytes, shape);
  if (problem) throw new HttpError(400, problem);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  // A declared length was checked against the limit before (checkRequestBody) and HTTP framing ends
  // the body there: read at once, which costs a fraction of reading the stream chunk by chunk.
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) <= maxBytes) return request.bytes();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop reading: the rest of an oversize body is never buffered.
      void reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
