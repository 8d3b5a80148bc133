/**
 * First polls waiting for a key's search for its duration to end (poll-estimator.ts): each
 * resolves when the search ends, or when a scout found done early wakes them.
 */
export class SearchWaiters {
  private readonly waiters = new Map<string, Array<() => void>>();

  /** Resolves when `key`'s waiters are woken. */
  wait(key: string): Promise<void> {
    return new Promise((resolve) => {
      const list = this.waiters.get(key) ?? [];
      list.push(resolve);
      this.waiters.set(key, list);
    });
  }

  /** Wakes every first poll waiting for `key`. */
  wake(key: string): void {
    const list = this.waiters.get(key);
    this.waiters.delete(key);
    for (const wake of list ?? []) wake();
  }
}
