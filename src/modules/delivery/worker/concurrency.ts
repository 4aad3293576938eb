/**
 * At most `limit` tasks at once; the others wait their turn in order.
 * @example const limit = new Semaphore(100); await limit.run(() => send());
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next task, so `active` stays counted.
      if (next) next();
      else this.active--;
    }
  }
}
