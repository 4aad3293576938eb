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
  private readonly parts: Buffer[] = [];
  private method = '';
  private path = '';
  private authorization: string | undefined;

  constructor(private readonly authority: string) {}

  /** Takes a request's header fields and returns the length of its block; `write` then writes it. */
  measure(headers: RequestHeaders): number {
    this.method = String(headers[':method'] ?? 'GET');
    this.path = String(headers[':path'] ?? '/');
    this.authorization = undefined;
    this.parts.length = 0;
    let length = this.prefix(this.method).length + integerLength(PATH_INDEX, 4) + integerLength(this.path.length, 7) + this.path.length;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined || name.charCodeAt(0) === 58 /* ':' */) continue;
      if (name === 'authorization') {
        this.authorization = String(value);
        length += integerLength(AUTHORIZATION_INDEX, 4) + integerLength(this.authorization.length, 7) + this.authorization.length;
        continue;
      }
      const part = this.field(name, String(value));
      this.parts.push(part);
      length += part.length;
    }
    return length;
  }

  /** Writes the block of the request last measured at `offset`; returns the offset after it. */
  write(buf: Buffer, offset: number): number {
    buf.set(this.prefix(this.method), offset);
    offset += this.prefix(this.method).length;
    offset = writeInteger(buf, offset, PATH_INDEX, 4, 0);
    offset = writeInteger(buf, offset, this.path.length, 7, 0);
    offset += buf.write(this.path, offset, 'latin1');
    if (this.authorization !== undefined) {
      offset = writeInteger(buf, offset, AUTHORIZATION_INDEX, 4, 0);
      offset = writeInteger(buf, offset, this.authorization.length, 7, 0);
      offset += buf.write(this.authorization, offset, 'latin1');
    }
    for (const part of this.parts) {
      buf.set(part, offset);
      offset += part.length;
    }
    return offset;
  }

  /** The header block of a request in a new buffer. */
  encode(headers: RequestHeaders): Buffer {
    const buf = Buffer.allocUnsafe(this.measure(headers));
    this.write(buf, 0);
    return buf;
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
