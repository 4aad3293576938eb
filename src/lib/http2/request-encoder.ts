import { integerLength, literalField, writeInteger } from './hpack';

/** Request headers as node:http2 takes them: pseudo-headers `:method` and `:path`, then the rest. */
export type RequestHeaders = Record<string, string | number | undefined>;

const PATH_INDEX = 4;
const AUTHORIZATION_INDEX = 23;
const AUTHORITY_INDEX = 1;
const METHOD: Record<string, number> = { GET: 0x82, POST: 0x83 };
const SCHEME_HTTPS = 0x87;
/** Distinct header fields kept encoded (topics, push types, priorities repeat; ids and dates do not). */
const CACHED_FIELDS = 512;

/**
 * Encodes request header blocks for one origin (RFC 7541): `:method`, `:scheme` and `:authority`
 * from a block computed once, `:path` and `authorization` as literals written straight into the
 * block, every other field as a literal without indexing, kept encoded while few distinct ones
 * repeat. Nothing enters the server's dynamic table, so its size never matters to us.
 */
export class RequestEncoder {
  private readonly prefixes = new Map<string, Buffer>();
  private readonly fields = new Map<string, Map<string, Buffer>>();
  private cached = 0;
  private scratch = Buffer.allocUnsafe(4096);

  constructor(private readonly authority: string) {}

  /** The header block of a request, valid until the next call (a view into a reused buffer). */
  encode(headers: RequestHeaders): Buffer {
    const method = String(headers[':method'] ?? 'GET');
    const path = String(headers[':path'] ?? '/');
    let length = this.prefix(method).length + 1 + integerLength(path.length, 7) + path.length;
    const parts: Buffer[] = [];
    let authorization: string | undefined;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined || name.charCodeAt(0) === 58 /* ':' */) continue;
      if (name === 'authorization') {
        authorization = String(value);
        length += 1 + integerLength(authorization.length, 7) + authorization.length;
        continue;
      }
      const part = this.field(name, String(value));
      parts.push(part);
      length += part.length;
    }
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(2 * length);
    const buf = this.scratch;
    let offset = this.prefix(method).copy(buf, 0);
    offset = writeInteger(buf, offset, PATH_INDEX, 4, 0);
    offset = writeInteger(buf, offset, path.length, 7, 0);
    offset += buf.write(path, offset, 'latin1');
    if (authorization !== undefined) {
      offset = writeInteger(buf, offset, AUTHORIZATION_INDEX, 4, 0);
      offset = writeInteger(buf, offset, authorization.length, 7, 0);
      offset += buf.write(authorization, offset, 'latin1');
    }
    for (const part of parts) offset += part.copy(buf, offset);
    return buf.subarray(0, offset);
  }

  private prefix(method: string): Buffer {
    let prefix = this.prefixes.get(method);
    if (!prefix) {
      const authority = literalField(AUTHORITY_INDEX, this.authority);
      const methodField = METHOD[method] !== undefined ? Buffer.from([METHOD[method]!]) : literalField(2, method);
      prefix = Buffer.concat([methodField, Buffer.from([SCHEME_HTTPS]), authority]);
      this.prefixes.set(method, prefix);
    }
    return prefix;
  }

  private field(name: string, value: string): Buffer {
    let values = this.fields.get(name);
    if (!values) this.fields.set(name, (values = new Map()));
    let part = values.get(value);
    if (!part) {
      part = literalField(name.toLowerCase(), value);
      if (this.cached < CACHED_FIELDS) {
        values.set(value, part);
        this.cached++;
      }
    }
    return part;
  }
}
