import { createCipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/** The record size every push is encrypted with: what a push service must accept (RFC 8030 §7.2). */
export const RECORD_SIZE = 4096;
/** salt (16) + rs (4) + idlen (1) + keyid (65): the aes128gcm header of a Web Push message. */
export const HEADER_SIZE = 86;
/** One record of 4096 bytes less the header, the padding delimiter and the AEAD tag (RFC 8291 §4). */
export const MAX_PLAINTEXT_BYTES = RECORD_SIZE - HEADER_SIZE - 1 - 16;

const KEY_INFO = Buffer.from('WebPush: info\0');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0');

/** The plaintext does not fit in one 4096-byte record. */
export class PayloadTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`the Web Push payload is ${bytes} bytes; at most ${MAX_PLAINTEXT_BYTES} fit in one ${RECORD_SIZE}-byte record`);
    this.name = 'PayloadTooLargeError';
  }
}

/** What the receiving browser gave in its subscription: `keys.p256dh` and `keys.auth`, decoded. */
export interface ReceiverKeys {
  /** The 65-byte uncompressed P-256 point. */
  p256dh: Uint8Array;
  /** The 16-byte authentication secret. */
  auth: Uint8Array;
}

/** Fixed inputs that make the output reproducible: only for the RFC's test vector, never when sending. */
export interface FixedInputs {
  salt: Uint8Array;
  /** The application server's ephemeral private key (32 bytes). */
  senderPrivateKey: Uint8Array;
}

/** The keys RFC 8291 derives for one message (shown in its Appendix A). */
export interface DerivedKeys {
  ecdhSecret: Buffer;
  ikm: Buffer;
  cek: Buffer;
  nonce: Buffer;
}

/**
 * RFC 8291 §3.3-3.4: the IKM from the ECDH secret and the auth secret, then the content encryption
 * key and the nonce from the IKM and the salt (HKDF-SHA-256 each time).
 */
export function deriveKeys(ecdhSecret: Buffer, receiver: ReceiverKeys, senderPublic: Uint8Array, salt: Uint8Array): DerivedKeys {
  const keyInfo = Buffer.concat([KEY_INFO, receiver.p256dh, senderPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, receiver.auth, keyInfo, 32));
  return {
    ecdhSecret,
    ikm,
    cek: Buffer.from(hkdfSync('sha256', ikm, salt, CEK_INFO, 16)),
    nonce: Buffer.from(hkdfSync('sha256', ikm, salt, NONCE_INFO, 12)),
  };
}

/**
 * The `aes128gcm` header (RFC 8188 §2.1): salt, record size, and the sender's public key as keyid.
 */
export function contentCodingHeader(salt: Uint8Array, senderPublic: Uint8Array): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.set(salt, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header[20] = senderPublic.length;
  header.set(senderPublic, 21);
  return header;
}

/**
 * Encrypts one push message for one subscription (RFC 8291): a fresh P-256 key pair and salt for
 * every message, one record, the padding delimiter 0x02 and no padding. The result is the whole
 * request body, sent with `Content-Encoding: aes128gcm`.
 * @throws PayloadTooLargeError when the plaintext exceeds 3,993 bytes.
 * @example const body = encryptPayload(Buffer.from(json), { p256dh, auth });
 */
export function encryptPayload(plaintext: Uint8Array, receiver: ReceiverKeys, fixed?: FixedInputs): Buffer<ArrayBuffer> {
  if (plaintext.length > MAX_PLAINTEXT_BYTES) throw new PayloadTooLargeError(plaintext.length);
  const sender = createECDH('prime256v1');
  if (fixed) sender.setPrivateKey(fixed.senderPrivateKey);
  else sender.generateKeys();
  const senderPublic = sender.getPublicKey();
  const salt = fixed?.salt ?? randomBytes(16);
  // Throws for a point that is not on the curve: subscriptions are validated before they are stored.
  const keys = deriveKeys(sender.computeSecret(receiver.p256dh), receiver, senderPublic, salt);
  const cipher = createCipheriv('aes-128-gcm', keys.cek, keys.nonce);
  const parts = [contentCodingHeader(salt, senderPublic), cipher.update(plaintext), cipher.update(DELIMITER), cipher.final(), cipher.getAuthTag()];
  return Buffer.concat(parts);
}

/** The last (and only) record's padding delimiter. */
const DELIMITER = Buffer.from([2]);
