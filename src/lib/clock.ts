/** Where time comes from. Everything that reads the time takes a Clock so tests can move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to.
 * @example
 * const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.advance(60_000);
 */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.parse('2026-01-15T12:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** ISO 8601 UTC with milliseconds, the one time format of the API. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
