/**
 * A waiter in a FIFO that an abort signal takes out: the one way the rate governor and the
 * shared governor's waiter queues queue an `acquire()`.
 */

/** How a waiter settles its promise; settling stops listening to the signal. */
export interface Settle<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * Pushes the waiter `make` builds onto `queue`. When `signal` aborts first, the waiter leaves
 * the queue, the promise rejects with the signal's reason and `onAbort` runs.
 */
export function enqueueAbortable<T, W>(queue: W[], signal: AbortSignal | undefined, settle: Settle<T>, make: (settle: Settle<T>) => W, onAbort?: () => void): void {
  const abort = (): void => {
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    settle.reject(signal?.reason);
    onAbort?.();
  };
  const waiter = make({
    resolve: (value) => {
      signal?.removeEventListener('abort', abort);
      settle.resolve(value);
    },
    reject: (error) => {
      signal?.removeEventListener('abort', abort);
      settle.reject(error);
    },
  });
  signal?.addEventListener('abort', abort, { once: true });
  queue.push(waiter);
}
