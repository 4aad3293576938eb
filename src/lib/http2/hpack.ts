import { ConnectionError, ERROR } from './frames';
import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from './huffman-table';

/** HPACK (RFC 7541): the static table, a full decoder (dynamic table, Huffman) and the encoder's pieces. */
export const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'], [':scheme', 'http'], [':scheme', 'https'],
  [':status', '200'], [':status', '204'], [':status', '206'], [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'],
  ['accept-charset', ''], ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''], ['content-disposition', ''],
  ['content-encoding', ''], ['content-language', ''], ['content-length', ''], ['content-location', ''], ['content-range', ''],
  ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''], ['expect', ''], ['expires', ''], ['from', ''], ['host', ''],
  ['if-match', ''], ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''],
  ['link', ''], ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''], ['strict-transport-security', ''],
  ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''], ['www-authenticate', ''],
];

/**
 * The Huffman code as a binary tree: node n's children at 2n (bit 0) and 2n+1 (bit 1); a child
 * value ≥ 0 is the next node, a negative one is a leaf, symbol -(value + 1).
 */
function huffmanTree(): Int32Array {
  const tree = new Int32Array(2 * 512);
  let nodes = 1;
  for (let sym = 0; sym <= 256; sym++) {
    let node = 0;
    for (let bit = HUFFMAN_LENGTHS[sym]! - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((HUFFMAN_CODES[sym]! >>> bit) & 1);
      if (bit === 0) tree[slot] = -(sym + 1);
      else node = tree[slot] || (tree[slot] = nodes++);
    }
  }
  return tree;
}

const EMIT = 1 << 16;
const FAIL = 1 << 17;
const ACCEPT = 1 << 18;
/**
 * The tree walked four bits at a time (as nghttp2 does): entry [state × 16 + nibble] holds the next
 * state (low 8 bits), the symbol emitted on the way (bits 8–15, with EMIT; four bits complete at most
 * one symbol, the shortest code being five), FAIL when EOS was met, and ACCEPT when the next state
 * may end a string: its bits since the last symbol are at most seven, all ones (RFC 7541 §5.2).
 */
const NIBBLES = (() => {
  const tree = huffmanTree();
  const table = new Int32Array(256 * 16);
  // Depth and all-ones of each internal node, from the root.
  const depth = new Int32Array(256);
  const ones = new Uint8Array(256).fill(0);
  ones[0] = 1;
  for (let node = 0; node < 256; node++) {
    for (const b of [0, 1]) {
      const child = tree[2 * node + b]!;
      if (child > 0) {
        depth[child] = depth[node]! + 1;
        ones[child] = ones[node]! && b === 1 ? 1 : 0;
      }
    }
  }
  for (let state = 0; state < 256; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = tree[2 * node + ((nibble >>> bit) & 1)]!;
        if (next === -257) entry |= FAIL;
        if (next < 0) {
          entry |= EMIT | ((-next - 1) & 0xff) << 8;
          node = 0;
        } else node = next;
      }
      if (ones[node] && depth[node]! <= 7) entry |= ACCEPT;
      table[state * 16 + nibble] = entry | node;
    }
  }
  return table;
})();

let scratch = Buffer.allocUnsafe(256);

/** Decodes a Huffman-coded string; padding must be at most 7 one-bits, and EOS may not appear (RFC 7541 §5.2). */
export function huffmanDecode(bytes: Uint8Array, start = 0, end = bytes.length): string {
  // Each byte gives at most 8/5 symbols.
  if (scratch.length < 2 * (end - start)) scratch = Buffer.allocUnsafe(2 * (end - start));
  let length = 0;
  let state = 0;
  let accept = true;
  for (let i = 2 * start; i < 2 * end; i++) {
    const nibble = i & 1 ? bytes[i >>> 1]! & 0xf : bytes[i >>> 1]! >>> 4;
    const entry = NIBBLES[state * 16 + nibble]!;
    if (entry & FAIL) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'EOS in a Huffman string');
    if (entry & EMIT) scratch[length++] = (entry >>> 8) & 0xff;
    state = entry & 0xff;
    accept = (entry & ACCEPT) !== 0;
  }
  if (!accept) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'bad Huffman padding');
  return scratch.toString('latin1', 0, length);
}

/** Huffman-encodes a latin1 string (for tests and peers that want it; our requests send raw literals). */
export function huffmanEncode(text: string): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const sym = text.charCodeAt(i) & 0xff;
    const len = HUFFMAN_LENGTHS[sym]!;
    const code = HUFFMAN_CODES[sym]!;
    for (let bit = len - 1; bit >= 0; bit--) {
      acc = (acc << 1) | ((code >>> bit) & 1);
      if (++bits === 8) {
        out.push(acc);
        acc = 0;
        bits = 0;
      }
    }
  }
  if (bits > 0) out.push(((acc << (8 - bits)) | (0xff >> bits)) & 0xff);
  return Buffer.from(out);
}

/** Bytes an integer takes with an N-bit prefix (RFC 7541 §5.1). */
export function integerLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let n = 2;
  for (value -= max; value >= 128; value = Math.floor(value / 128)) n++;
  return n;
}

/** Writes an integer with an N-bit prefix, `flags` in the first byte's high bits; returns the offset after it. */
export function writeInteger(buf: Uint8Array, offset: number, value: number, prefixBits: number, flags: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    buf[offset] = flags | value;
    return offset + 1;
  }
  buf[offset++] = flags | max;
  for (value -= max; value >= 128; value = Math.floor(value / 128)) buf[offset++] = (value % 128) | 0x80;
  buf[offset] = value;
  return offset + 1;
}

/** A literal header field without indexing (RFC 7541 §6.2.2): by static name index, or with its name as a raw string. */
export function literalField(name: string | number, value: string): Buffer {
  const nameLength = typeof name === 'number' ? integerLength(name, 4) : 1 + integerLength(name.length, 7) + name.length;
  const buf = Buffer.allocUnsafe(nameLength + integerLength(value.length, 7) + value.length);
  let offset: number;
  if (typeof name === 'number') offset = writeInteger(buf, 0, name, 4, 0);
  else {
    buf[0] = 0;
    offset = writeInteger(buf, 1, name.length, 7, 0);
    offset += buf.write(name, offset, 'latin1');
  }
  offset = writeInteger(buf, offset, value.length, 7, 0);
  buf.write(value, offset, 'latin1');
  return buf;
}

/**
 * The decoding side of one connection: the static table and the server's dynamic table, whose size
 * the server sets with size updates up to the 4,096 bytes we allow (the default we never change).
 */
export class HpackDecoder {
  /** Newest entry last; dynamic index 1 is the last element. */
  private readonly entries: [string, string][] = [];
  private size = 0;
  private capacity: number;

  /** `maxCapacity`: the SETTINGS_HEADER_TABLE_SIZE we allow (4,096 unless we say otherwise, and we do not). */
  constructor(private readonly maxCapacity = 4096) {
    this.capacity = maxCapacity;
  }

  /** Calls `onField` per header field of a whole header block, in order. */
  decode(block: Buffer, onField: (name: string, value: string) => void): void {
    const cursor = { block, offset: 0 };
    let fieldsSeen = false;
    while (cursor.offset < block.length) {
      const byte = block[cursor.offset]!;
      if (byte & 0x80) {
        const [name, value] = this.entry(this.integer(cursor, 7));
        onField(name, value);
      } else if ((byte & 0xe0) === 0x20) {
        // A size update may only come first in a block (RFC 7541 §4.2).
        if (fieldsSeen) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'dynamic table size update after a field');
        const capacity = this.integer(cursor, 5);
        if (capacity > this.maxCapacity) throw new ConnectionError(ERROR.COMPRESSION_ERROR, `dynamic table size ${capacity} over ${this.maxCapacity}`);
        this.capacity = capacity;
        this.evict(0);
        continue;
      } else {
        const indexing = (byte & 0xc0) === 0x40;
        const index = this.integer(cursor, indexing ? 6 : 4);
        const name = index === 0 ? this.string(cursor) : this.entry(index)[0];
        const value = this.string(cursor);
        if (indexing) this.add(name, value);
        onField(name, value);
      }
      fieldsSeen = true;
    }
  }

  private entry(index: number): readonly [string, string] {
    if (index === 0) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'header index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.entries[this.entries.length - (index - STATIC_TABLE.length)];
    if (!entry) throw new ConnectionError(ERROR.COMPRESSION_ERROR, `header index ${index} not in the tables`);
    return entry;
  }

  private add(name: string, value: string): void {
    const size = 32 + name.length + value.length;
    this.evict(size);
    // An entry larger than the table empties it and is not added (RFC 7541 §4.4).
    if (size > this.capacity) return;
    this.entries.push([name, value]);
    this.size += size;
  }

  private evict(room: number): void {
    let drop = 0;
    while (this.size + room > this.capacity && drop < this.entries.length) {
      const [name, value] = this.entries[drop++]!;
      this.size -= 32 + name.length + value.length;
    }
    if (drop > 0) this.entries.splice(0, drop);
  }

  private integer(cursor: { block: Buffer; offset: number }, prefixBits: number): number {
    const { block } = cursor;
    const max = (1 << prefixBits) - 1;
    let value = block[cursor.offset++]! & max;
    if (value < max) return value;
    for (let shift = 0; ; shift += 7) {
      if (cursor.offset >= block.length) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'truncated integer');
      if (shift > 28) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'integer too large');
      const byte = block[cursor.offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  }

  private string(cursor: { block: Buffer; offset: number }): string {
    const { block } = cursor;
    if (cursor.offset >= block.length) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'truncated string');
    const huffman = (block[cursor.offset]! & 0x80) !== 0;
    const length = this.integer(cursor, 7);
    const end = cursor.offset + length;
    if (end > block.length) throw new ConnectionError(ERROR.COMPRESSION_ERROR, 'string past the end of the block');
    const start = cursor.offset;
    cursor.offset = end;
    return huffman ? huffmanDecode(block, start, end) : block.toString('latin1', start, end);
  }
}
