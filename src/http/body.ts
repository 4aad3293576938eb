import { HttpError } from '../lib/errors';

/** Request bodies larger than this are refused with 413 before they are parsed. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Reads a JSON request body with the size limit. Any content type is read as JSON (the API speaks
 * only JSON, and a forgotten header should not turn into a confusing type error); an empty body is
 * `undefined`.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > BODY_LIMIT_BYTES) throw tooLarge();
  const bytes = await readLimited(request);
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

async function readLimited(request: Request): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const tooLarge = () => new HttpError(413, `request body exceeds ${BODY_LIMIT_BYTES / 1024} KiB`);
