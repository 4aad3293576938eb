import { createDecipheriv, createECDH, hkdfSync } from 'node:crypto';

/** What a browser does with a push body (RFC 8188 + RFC 8291), written apart from the sender's code. */
export interface Decrypted {
  plaintext: Buffer;
  salt: Buffer;
  rs: number;
  /** The sender's ephemeral public key. */
  keyid: Buffer;
  cek: Buffer;
  nonce: Buffer;
}

/** The receiving side of one subscription: its private key and auth secret. */
export interface ReceiverSecrets {
  privateKey: Uint8Array;
  auth: Uint8Array;
}

/**
 * Decrypts an `aes128gcm` Web Push body as a user agent does, refusing what RFC 8291 forbids: a
 * keyid that is not a 65-byte P-256 point, more than one record, a delimiter other than 0x02.
 * @throws Error naming what is wrong.
 */
export function decryptPush(body: Uint8Array, receiver: ReceiverSecrets): Decrypted {
  const data = Buffer.from(body);
  if (data.length < 21) throw new Error('body shorter than the aes128gcm header');
  const salt = data.subarray(0, 16);
  const rs = data.readUInt32BE(16);
  const idlen = data[20]!;
  if (rs < 18) throw new Error(`record size ${rs} below 18`);
  if (idlen !== 65) throw new Error(`keyid of ${idlen} bytes; Web Push needs the 65-byte sender public key`);
  const keyid = data.subarray(21, 21 + idlen);
  if (keyid.length !== 65 || keyid[0] !== 4) throw new Error('keyid is not an uncompressed P-256 point');
  const record = data.subarray(21 + idlen);
  if (record.length > rs) throw new Error(`more than one record (${record.length} bytes after the header, record size ${rs})`);
  if (record.length < 17) throw new Error('record shorter than the AEAD tag and the delimiter');
  const ua = createECDH('prime256v1');
  ua.setPrivateKey(receiver.privateKey);
  const uaPublic = ua.getPublicKey();
  const secret = ua.computeSecret(keyid);
  const ikm = Buffer.from(hkdfSync('sha256', secret, receiver.auth, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, keyid]), 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  let padded: Buffer;
  try {
    padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  } catch {
    throw new Error('decryption failed (wrong keys or a modified body)');
  }
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 2) throw new Error('the padding delimiter is not 0x02 (the last record)');
  return { plaintext: padded.subarray(0, end), salt, rs, keyid, cek, nonce };
}
