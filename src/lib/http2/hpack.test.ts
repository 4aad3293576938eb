import { describe, expect, test } from 'bun:test';
import { ConnectionError } from './frames';
import { HpackDecoder, huffmanDecode, huffmanEncode, integerLength, literalField, writeInteger } from './hpack';
import { RequestEncoder } from './request-encoder';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const decodeAll = (decoder: HpackDecoder, block: Buffer) => {
  const fields: [string, string][] = [];
  decoder.decode(block, (name, value) => fields.push([name, value]));
  return fields;
};

describe('HPACK (RFC 7541)', () => {
  test('integers with a prefix: 10 in 5 bits, 1337 in 5 bits, 42 in 8 bits (C.1)', () => {
    const buf = new Uint8Array(8);
    expect(buf.subarray(0, writeInteger(buf, 0, 10, 5, 0))).toEqual(new Uint8Array([10]));
    expect(buf.subarray(0, writeInteger(buf, 0, 1337, 5, 0))).toEqual(new Uint8Array([31, 154, 10]));
    expect(integerLength(1337, 5)).toBe(3);
    expect(buf.subarray(0, writeInteger(buf, 0, 42, 8, 0))).toEqual(new Uint8Array([42]));
  });

  test('requests with Huffman coding and the dynamic table, three in a row on one decoder (C.4)', () => {
    const d = new HpackDecoder();
    expect(decodeAll(d, hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))).toEqual([[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']]);
    expect(decodeAll(d, hex('8286 84be 5886 a8eb 1064 9cbf'))).toEqual([[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']]);
    expect(decodeAll(d, hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))).toEqual([
      [':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value'],
    ]);
  });

  test('responses with Huffman coding and a 256-byte table that evicts (C.6)', () => {
    const d = new HpackDecoder(256);
    const location: [string, string] = ['location', 'https://www.example.com'];
    expect(decodeAll(d, hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3'))).toEqual([
      [':status', '302'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], location,
    ]);
    expect(decodeAll(d, hex('4883 640e ff c1 c0 bf'))).toEqual([[':status', '307'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], location]);
    expect(
      decodeAll(d, hex('88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07')),
    ).toEqual([
      [':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], location, ['content-encoding', 'gzip'],
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ]);
  });

  test('Huffman: every byte value survives a round trip; bad padding, an index past the tables and a table larger than we allow are compression errors', () => {
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    expect(huffmanDecode(huffmanEncode(all))).toBe(all);
    // 'a' is 00011 (5 bits): three zero bits of padding instead of ones.
    expect(() => huffmanDecode(Buffer.from([0b00011000]))).toThrow(ConnectionError);
    expect(() => new HpackDecoder().decode(Buffer.from([0xff, 0x00]), () => {})).toThrow(ConnectionError);
    expect(() => new HpackDecoder().decode(Buffer.from([0x3f, 0xe2, 0x1f]), () => {})).toThrow('dynamic table size 4097 over 4096');
  });

  test('our request blocks decode to the request: static method/scheme, authority, path, authorization and the rest as literals', () => {
    const encoder = new RequestEncoder('api.push.apple.com');
    const block = encoder.encode({ ':method': 'POST', ':path': '/3/device/abc', authorization: 'bearer x.y.z', 'apns-topic': 'com.example', 'apns-priority': 10 });
    expect(decodeAll(new HpackDecoder(), Buffer.from(block))).toEqual([
      [':method', 'POST'], [':scheme', 'https'], [':authority', 'api.push.apple.com'], [':path', '/3/device/abc'],
      ['authorization', 'bearer x.y.z'], ['apns-topic', 'com.example'], ['apns-priority', '10'],
    ]);
    // measure() is exact: the block fills the buffer it made to the byte.
    expect(encoder.measure({ ':method': 'POST', ':path': '/3/device/abc', authorization: 'bearer x.y.z', 'apns-topic': 'com.example', 'apns-priority': 10 })).toBe(block.length);
    expect(encoder.write(Buffer.alloc(block.length + 1), 1)).toBe(block.length + 1);
    expect(literalField('a', 'b')).toEqual(Buffer.from([0, 1, 0x61, 1, 0x62]));
  });
});
