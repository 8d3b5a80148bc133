/**
 * Bounds the submissions that are between their intent record and the service's answer. A
 * crash leaves every one of them `unknown` (the service may or may not have the job), so the
 * fewer at once the better; a handful is enough to keep any account's rate limit busy, since
 * a submission's answer takes one round trip. Waiting for a slot happens after the rate
 * governor's permit and before the intent is journalled, so a crash while waiting leaves
 * nothing ambiguous.
 */

/** Submissions between intent and answer at once. */
export const DEFAULT_SUBMIT_WINDOW = 8;

export class SubmitWindow {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size = DEFAULT_SUBMIT_WINDOW) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`submit window: expected a whole number ≥ 1, got ${size}`);
  }

  /** Resolves with the slot's release once one is free; rejects if `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.used >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const at = this.waiting.indexOf(grant);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal?.reason);
        };
        const grant = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiting.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } else this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `used` stays the same.
      if (next) next();
      else this.used--;
    };
  }

  /** Slots in use. */
  get inUse(): number {
    return this.used;
  }
}
