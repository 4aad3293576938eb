import { describe, expect, test } from 'bun:test';
import { createECDH, createHmac, randomBytes } from 'node:crypto';
import { decryptPush } from '../../../../test-support/webpush-decrypt';
import { contentCodingHeader, deriveKeys, encryptPayload, MAX_PLAINTEXT_BYTES, PayloadTooLargeError, RECORD_SIZE } from './webpush.encryption';

const b64 = (s: string) => Buffer.from(s, 'base64url');
const text = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** RFC 8291 Appendix A (the example of its Section 5), inputs and intermediate values as printed there. */
const RFC = {
  plaintext: 'V2hlbiBJIGdyb3cgdXAsIEkgd2FudCB0byBiZSBhIHdhdGVybWVsb24',
  asPublic: 'BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  authSecret: 'BTBZMqHH6r4Tts7J_aSIgg',
  ecdhSecret: 'kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs',
  prkKey: 'Snr3JMxaHVDXHWJn5wdC52WjpCtd2EIEGBykDcZW32k',
  ikm: 'S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg',
  prk: '09_eUZGrsvxChDCGRCdkLiDXrReGOEVeSCdCcPBSJSc',
  cek: 'oIhVW04MRdy2XN9CiKLxTg',
  nonce: '4h_95klXJ5E_qnoN',
  header: 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8',
  body:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};
const receiver = { p256dh: b64(RFC.uaPublic), auth: b64(RFC.authSecret) };

describe('RFC 8291 Appendix A', () => {
  test('the keys derived for the example are the printed intermediate values', () => {
    const as = createECDH('prime256v1');
    as.setPrivateKey(b64(RFC.asPrivate));
    expect(text(as.getPublicKey())).toBe(RFC.asPublic);
    const secret = as.computeSecret(b64(RFC.uaPublic));
    const keys = deriveKeys(secret, receiver, as.getPublicKey(), b64(RFC.salt));
    expect(text(keys.ecdhSecret)).toBe(RFC.ecdhSecret);
    // HKDF-Extract is one HMAC: the PRKs the RFC prints lead to the IKM and the CEK derived.
    expect(text(createHmac('sha256', b64(RFC.authSecret)).update(secret).digest())).toBe(RFC.prkKey);
    expect(text(keys.ikm)).toBe(RFC.ikm);
    expect(text(createHmac('sha256', b64(RFC.salt)).update(keys.ikm).digest())).toBe(RFC.prk);
    expect(text(keys.cek)).toBe(RFC.cek);
    expect(text(keys.nonce)).toBe(RFC.nonce);
    expect(text(contentCodingHeader(b64(RFC.salt), as.getPublicKey()))).toBe(RFC.header);
  });

  test('the encrypted body is byte for byte the RFC example, and the user agent key decrypts it', () => {
    const body = encryptPayload(b64(RFC.plaintext), receiver, { salt: b64(RFC.salt), senderPrivateKey: b64(RFC.asPrivate) });
    expect(text(body)).toBe(RFC.body);
    const decrypted = decryptPush(b64(RFC.body), { privateKey: b64(RFC.uaPrivate), auth: b64(RFC.authSecret) });
    expect(decrypted.plaintext.toString()).toBe('When I grow up, I want to be a watermelon');
    expect(decrypted.rs).toBe(4096);
  });
});

describe('encryptPayload', () => {
  const browser = () => {
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    return { keys: { p256dh: ua.getPublicKey(), auth: randomBytes(16) }, secrets: { privateKey: ua.getPrivateKey(), auth: Buffer.alloc(0) } };
  };

  test('a fresh sender key and salt for every message: the same text never encrypts the same way twice', () => {
    const { keys, secrets } = browser();
    const plaintext = Buffer.from('{"web_push":8030}');
    const [a, b] = [encryptPayload(plaintext, keys), encryptPayload(plaintext, keys)];
    expect(a.subarray(0, 16).equals(b.subarray(0, 16))).toBe(false);
    expect(a.subarray(21, 86).equals(b.subarray(21, 86))).toBe(false);
    for (const body of [a, b]) expect(decryptPush(body, { ...secrets, auth: keys.auth }).plaintext.toString()).toBe('{"web_push":8030}');
  });

  test('3,993 bytes fill one 4096-byte record exactly; one byte more is refused naming its size', () => {
    const { keys, secrets } = browser();
    const body = encryptPayload(Buffer.alloc(MAX_PLAINTEXT_BYTES, 'x'), keys);
    expect(MAX_PLAINTEXT_BYTES).toBe(3993);
    expect(body.length).toBe(RECORD_SIZE);
    expect(decryptPush(body, { ...secrets, auth: keys.auth }).plaintext.length).toBe(3993);
    expect(() => encryptPayload(Buffer.alloc(3994), keys)).toThrow(new PayloadTooLargeError(3994));
    expect(new PayloadTooLargeError(3994).message).toBe('the Web Push payload is 3994 bytes; at most 3993 fit in one 4096-byte record');
  });

  test('a receiver key that is not a point on P-256 is refused, not encrypted to', () => {
    const bad = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]);
    expect(() => encryptPayload(Buffer.from('x'), { p256dh: bad, auth: randomBytes(16) })).toThrow();
  });
});
