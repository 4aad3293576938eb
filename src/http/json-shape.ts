/** How deep and how wide a JSON body may be before it is parsed. */
export interface JsonShapeLimits {
  maxDepth: number;
  maxKeys: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * One pass over the raw bytes of a JSON text that measures its nesting depth and counts its keys
 * (a colon outside a string), without building anything: a 50 KB `[[[[…` is refused in
 * microseconds instead of being parsed and validated. It does not check that the text is valid
 * JSON (JSON.parse does that next); multi-byte UTF-8 never contains these ASCII bytes.
 * Returns what is wrong, or undefined.
 * @example jsonShapeProblem(Buffer.from('[[[1]]]'), { maxDepth: 2, maxKeys: 10 }) // 'request body nests deeper than 2 levels'
 */
export function jsonShapeProblem(bytes: Uint8Array, limits: JsonShapeLimits): string | undefined {
  let depth = 0;
  let keys = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > limits.maxDepth) return `request body nests deeper than ${limits.maxDepth} levels`;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
    else if (b === COLON && ++keys > limits.maxKeys) return `request body has more than ${limits.maxKeys} keys`;
  }
  return undefined;
}
