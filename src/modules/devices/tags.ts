import { HttpError } from '../../lib/errors';

export const MAX_TAGS = 64;
export const MAX_TAG_KEY = 64;
export const MAX_TAG_VALUE = 256;
/** A tag key: 1 to 64 letters, digits, `_`, `-`, `.` or `:`. */
export const TAG_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Refuses a key that is not 1–64 characters of letters, digits, `_ - . :`, naming it. */
export function requireTagKey(key: string, where = 'tag key'): void {
  if (!TAG_KEY.test(key)) {
    const shown = key.length > MAX_TAG_KEY ? `${key.slice(0, MAX_TAG_KEY)}…` : key;
    throw new HttpError(400, `${where} "${shown}" must be 1 to ${MAX_TAG_KEY} letters, digits, _, -, . or :`);
  }
}

/**
 * Refuses a `__proto__` key in a request's tags before validation, where PUT and PATCH would treat
 * it differently (a copy of the body drops it, a read keeps it): one rule for both, a 400.
 */
export function refuseProtoKey(body: unknown): void {
  const tags = (body as { tags?: unknown } | undefined)?.tags;
  if (tags !== null && typeof tags === 'object' && Object.hasOwn(tags, '__proto__')) throw new HttpError(400, 'tag key "__proto__" is reserved');
}

/** Refuses a value over 256 characters, naming its key. */
export function requireTagValue(key: string, value: string): void {
  if (value.length > MAX_TAG_VALUE) throw new HttpError(400, `tag "${key}" has a value of ${value.length} characters: at most ${MAX_TAG_VALUE}`);
}

/** Refuses a set of tags over the limit. */
export function requireTagCount(count: number): void {
  if (count > MAX_TAGS) throw new HttpError(400, `an end user has at most ${MAX_TAGS} tags: this would make ${count}`);
}
