import { createHash } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import type { Clock } from '../../../../lib/clock';
import type { ApnsCredentials } from '../../../apps/credentials';

const MINUTE = 60_000;
/** Apple refuses tokens older than 60 minutes and refreshes more often than every 20. */
export const MIN_TOKEN_AGE_MS = 20 * MINUTE;
export const DEFAULT_TOKEN_REFRESH_MS = 40 * MINUTE;

interface Entry {
  token: Promise<string>;
  issuedAt: number;
}

/**
 * ES256 provider tokens, one per key (team id, key id and key), signed once and reused until
 * `refreshMs` has passed. Apple answers 429 TooManyProviderTokenUpdates when a key's token changes
 * more often than every 20 minutes, so nothing here signs sooner than that.
 * @example const tokens = new ApnsTokens(clock); headers.authorization = `bearer ${await tokens.get(creds)}`;
 */
export class ApnsTokens {
  private readonly entries = new Map<string, Entry>();
  private readonly keys = new Map<string, Promise<CryptoKey>>();
  private readonly ids = new WeakMap<ApnsCredentials, string>();
  /** How many tokens were signed, for tests and logs. */
  signatures = 0;

  constructor(
    private readonly clock: Clock,
    private readonly refreshMs: number = DEFAULT_TOKEN_REFRESH_MS,
  ) {
    if (refreshMs < MIN_TOKEN_AGE_MS || refreshMs > 50 * MINUTE) throw new Error('the APNs token refresh interval must be 20 to 50 minutes');
  }

  /** The current token for these credentials, signing a new one only when the old one is due. */
  get(creds: ApnsCredentials): Promise<string> {
    const id = this.id(creds);
    const now = this.clock.now();
    const entry = this.entries.get(id);
    if (entry && now - entry.issuedAt < this.refreshMs && now >= entry.issuedAt) return entry.token;
    const fresh: Entry = { token: this.sign(id, creds, now), issuedAt: now };
    // A failed signature is not cached: the next call tries again.
    fresh.token.catch(() => this.entries.get(id) === fresh && this.entries.delete(id));
    this.entries.set(id, fresh);
    return fresh.token;
  }

  /**
   * Apple said the token expired (clocks disagree, or the process slept): sign anew on the next
   * call, but only if the token is old enough for Apple to accept a new one.
   */
  expire(creds: ApnsCredentials): void {
    const id = this.id(creds);
    const entry = this.entries.get(id);
    if (entry && this.clock.now() - entry.issuedAt >= MIN_TOKEN_AGE_MS) this.entries.delete(id);
  }

  private async sign(id: string, creds: ApnsCredentials, now: number): Promise<string> {
    let key = this.keys.get(id);
    if (!key) {
      key = importPKCS8(creds.key, 'ES256');
      this.keys.set(id, key);
      key.catch(() => this.keys.delete(id));
    }
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: creds.keyId })
      .setIssuer(creds.teamId)
      .setIssuedAt(Math.floor(now / 1000))
      .sign(await key);
    this.signatures++;
    return token;
  }

  private id(creds: ApnsCredentials): string {
    let id = this.ids.get(creds);
    if (!id) {
      id = `${creds.teamId}:${creds.keyId}:${createHash('sha256').update(creds.key).digest('hex').slice(0, 16)}`;
      this.ids.set(creds, id);
    }
    return id;
  }
}
