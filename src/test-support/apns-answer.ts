import { randomBytes } from 'node:crypto';

/**
 * What the APNs stand-in and the parts it asks (the modelled phones, the broadcast channels) share:
 * an answer and the shape of a device token. In a file of its own so that those parts need not
 * import the stand-in that imports them (src/test-support has no import cycle).
 */
export interface StandinAnswer {
  status: number;
  reason?: string;
  headers?: Record<string, string>;
  /** 410: when the token was last found invalid (ms); default now. */
  timestamp?: number;
  /** A success body (channel reads and lists). */
  body?: string;
}

/**
 * A 64-hex-digit token, the shape of an APNs device token: random, or derived from a label so a
 * test can name it (`apnsToken('p2s')` is always the same token).
 */
export const apnsToken = (label?: string): string =>
  label === undefined ? randomBytes(32).toString('hex') : Buffer.from(label).toString('hex').padEnd(64, '0').slice(0, 200);
