/**
 * Waiting for what happens in the background (a delivery, a wake-up heard from another instance):
 * one helper for every test instead of a copy per file. Both poll; neither asserts a duration (the
 * machines are shared and slow at times): the deadline only turns a hang into a failure that says
 * what was awaited.
 */

export interface WaitOptions {
  /** Gives up after this long (default 10 s), failing with `what`. */
  timeoutMs?: number;
  /** Time between two checks (default 10 ms). */
  intervalMs?: number;
  /** What to add to the failure, read when it fails (a served process's output so far). */
  detail?: () => string;
}

/**
 * Resolves once `condition` holds; rejects after `timeoutMs` naming `what`.
 * @example await until('the phone received 3 pushes', () => phone.received.length === 3);
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}${options.detail ? `\n${options.detail()}` : ''}`);
    await Bun.sleep(options.intervalMs ?? 10);
  }
}

/**
 * Resolves with `check`'s result once it stops throwing (an `expect` inside it that now passes);
 * after `timeoutMs` rejects with its last error, so the failure shows the assertion itself.
 * @example const row = await eventually(async () => { const r = await record(); expect(r.status).toBe('sent'); return r; });
 */
export async function eventually<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) {
        if (options.detail && e instanceof Error) e.message += `\n${options.detail()}`;
        throw e;
      }
      await Bun.sleep(options.intervalMs ?? 10);
    }
  }
}
