/**
 * Hands items to a handler at virtual times with a single outstanding clock sleep, however
 * many are queued: a binary heap ordered by time, re-armed when an earlier entry arrives. The job store
 * uses it to settle (charge) jobs nobody polls and to fire webhooks at the right moments.
 */
import type { Clock } from '../../common/index.js';

interface Entry<T> {
  readonly at: number;
  readonly seq: number;
  readonly item: T;
}

/** Calls `handle(item)` for each scheduled item once the clock reaches its time. */
export class TimerQueue<T> {
  // Entries hold the item, not a closure: at 100,000 queued jobs a closure each costs ~100 B.
  private readonly heap: Entry<T>[] = [];
  private seq = 0;
  private armedAt = Number.POSITIVE_INFINITY;
  private abort: AbortController | null = null;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly handle: (item: T) => void,
  ) {}

  /** Hands `item` to the handler once the clock reaches `at` (virtual epoch ms). */
  schedule(at: number, item: T): void {
    if (this.closed) return;
    this.push({ at, seq: this.seq++, item });
    if (at < this.armedAt) this.arm();
  }

  /** Number of callbacks still waiting. */
  get size(): number {
    return this.heap.length;
  }

  /** Drops every pending callback and the outstanding sleep. */
  close(): void {
    this.closed = true;
    this.heap.length = 0;
    this.abort?.abort();
    this.abort = null;
  }

  private arm(): void {
    this.abort?.abort();
    const next = this.heap[0];
    if (!next || this.closed) {
      this.armedAt = Number.POSITIVE_INFINITY;
      this.abort = null;
      return;
    }
    const controller = new AbortController();
    this.abort = controller;
    this.armedAt = next.at;
    this.clock.sleep(Math.max(0, next.at - this.clock.now()), controller.signal).then(
      () => {
        if (this.abort === controller) this.fire();
      },
      () => undefined,
    );
  }

  private fire(): void {
    // Timers may wake a hair early on a scaled clock: allow one real millisecond of slack.
    const horizon = this.clock.now() + 1 / this.clock.realPerVirtual;
    while (!this.closed && this.heap.length > 0 && (this.heap[0]?.at ?? Number.POSITIVE_INFINITY) <= horizon) {
      const entry = this.pop();
      try {
        if (entry) this.handle(entry.item);
      } catch {
        // A failing callback must not stop the others.
      }
    }
    this.arm();
  }

  private push(entry: Entry<T>): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Entry<T>, heap[parent] as Entry<T>)) break;
      [heap[i], heap[parent]] = [heap[parent] as Entry<T>, heap[i] as Entry<T>];
      i = parent;
    }
  }

  private pop(): Entry<T> | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l] as Entry<T>, heap[m] as Entry<T>)) m = l;
        if (r < heap.length && before(heap[r] as Entry<T>, heap[m] as Entry<T>)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as Entry<T>, heap[i] as Entry<T>];
        i = m;
      }
    }
    return top;
  }
}

function before<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
