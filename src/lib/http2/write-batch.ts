const SLAB = 64 * 1024;

/**
 * Request frames of one turn of the event loop, written into one slab and sent together: one TLS
 * record and one syscall for many requests, no buffer per request. A slab is used on after its
 * sent part (which the socket may still hold) and replaced when full.
 * @example const b = batch.reserve(n); let at = batch.end; …write at `at`…; batch.end = at + n;
 */
export class WriteBatch {
  private slab = Buffer.allocUnsafe(SLAB);
  private start = 0;
  /** Where the next frames go in the slab `reserve` returned. */
  end = 0;
  private scheduled = false;

  constructor(private readonly send: (bytes: Buffer) => void) {}

  /** The slab with room for `size` bytes at `end`; the batch goes out on the next turn (or at `flush`). */
  reserve(size: number): Buffer {
    if (this.end + size > this.slab.length) {
      this.flush();
      this.slab = Buffer.allocUnsafe(Math.max(SLAB, size));
      this.start = this.end = 0;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
    return this.slab;
  }

  /** Sends what is batched now (before any other frame, so frames keep their order). */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.end === this.start) return;
    this.send(this.slab.subarray(this.start, this.end));
    this.start = this.end;
  };
}
