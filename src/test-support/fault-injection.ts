/**
 * Failures a stand-in can be told to produce, for the outage and fault tests and `npm run chaos`.
 * The mix follows what providers really do: a 500, a 503 (overloaded), a 429 with Retry-After
 * (too many pushes to one token), a GOAWAY (the connection is drained: streams above its
 * last-stream-id were not processed), and a stream reset after the request was read (outcome
 * unknown to the client).
 */
export type Fault = 'internal' | 'unavailable' | 'too-many' | 'goaway' | 'reset';

export const FAULTS: readonly Fault[] = ['internal', 'unavailable', 'too-many', 'goaway', 'reset'];

export interface FaultSettings {
  /** Share of valid requests that meet a fault, 0–1. */
  rate: number;
  /** The faults to draw from, evenly (all by default). */
  kinds?: readonly Fault[];
  /** Retry-After seconds on the 429s. */
  retryAfterS?: number;
  /** Stop after this many faults. */
  limit?: number;
}

/**
 * Draws faults for requests. Deterministic with a seeded random, so a test's counts repeat.
 * @example const faults = new FaultInjector(); faults.set({ rate: 0.1 }); faults.draw() // 'reset' | undefined
 */
export class FaultInjector {
  private settings: FaultSettings = { rate: 0 };
  /** Faults produced so far, by kind. */
  readonly produced: Record<Fault, number> = { internal: 0, unavailable: 0, 'too-many': 0, goaway: 0, reset: 0 };

  private total = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** Replaces the settings; `limit` counts from now. */
  set(settings: FaultSettings): void {
    this.settings = settings;
    this.total = 0;
  }

  get retryAfterS(): number {
    return this.settings.retryAfterS ?? 1;
  }

  /** The fault this request meets, if any. */
  draw(): Fault | undefined {
    const { rate, kinds = FAULTS, limit = Infinity } = this.settings;
    if (rate <= 0 || kinds.length === 0 || this.random() >= rate) return undefined;
    if (this.total >= limit) return undefined;
    const fault = kinds[Math.floor(this.random() * kinds.length)]!;
    this.produced[fault]++;
    this.total++;
    return fault;
  }
}

/** A small seeded PRNG (mulberry32), so fault sequences repeat from run to run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
