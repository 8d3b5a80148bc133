/**
 * A counting semaphore for requests on the wire. Requests take a slot only while they are
 * being sent and answered: waits for a rate window or a retry delay happen outside it, so a
 * sleeping retry never blocks other work.
 */
export class InFlightSlots {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly capacity: number) {}

  /** Resolves once a slot is held; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.capacity) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter, so `active` stays the same.
    if (next) next();
    else this.active = Math.max(0, this.active - 1);
  }

  /** Slots held right now. */
  get inUse(): number {
    return this.active;
  }
}
