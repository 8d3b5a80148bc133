/**
 * This process's waiters for shared buckets: a FIFO per bucket, one drain at a time per
 * bucket (a drain asked for while one runs runs again after it), and the wake-ups — at a
 * window's end (on the shared clock, plus the skew margin), or soon when the wait is for an
 * answer from any process (should its published wake-up be lost).
 */
import type { AcquireRequest } from '../../client/index.js';
import { type Clock, enqueueAbortable } from '../../common/index.js';

export interface Waiter<T> {
  readonly request: AcquireRequest;
  /** Clock ms it started to wait. */
  readonly since: number;
  resolve(slot: T): void;
  reject(error: unknown): void;
}

export interface WaiterQueuesOptions<T> {
  readonly clock: Clock;
  /** Clock ms added to a window end before looking again. */
  readonly skewMs: number;
  /** Hands slots to the waiters of `key` (the queue itself, to shift from) until the bucket refuses. */
  readonly drain: (key: string, queue: Waiter<T>[]) => Promise<void>;
}

/** Real ms between two looks at a bucket whose waiters wait for an answer (should a wake-up be lost). */
const ANSWER_POLL_MS = 250;

export class WaiterQueues<T> {
  private readonly queues = new Map<string, Waiter<T>[]>();
  private readonly pumping = new Map<string, boolean>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, { due: number; controller: AbortController }>();
  private readonly pollTimers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: WaiterQueuesOptions<T>) {}

  /** Queues `request` for a slot of `key`; aborting its signal takes it out. */
  enqueue(key: string, request: AcquireRequest): Promise<T> {
    const queue = this.queue(key);
    return new Promise<T>((resolve, reject) => {
      // On abort, the drain withdraws what this process claimed for it.
      enqueueAbortable(queue, request.signal, { resolve, reject }, (settle): Waiter<T> => ({ request, since: this.options.clock.now(), ...settle }), () => this.pump(key));
      if (queue.length === 1) this.pump(key);
    });
  }

  /** Whether anyone here waits for a slot of `key`. */
  waiting(key: string): boolean {
    return this.queued(key) > 0;
  }

  /** How many here wait for a slot of `key`. */
  queued(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }

  /** Drains the queue of `key` (again after the running drain, if one runs). */
  pump(key: string): void {
    if (this.closed) return;
    if (this.pumping.get(key)) {
      this.again.add(key);
      return;
    }
    this.pumping.set(key, true);
    this.options
      .drain(key, this.queue(key))
      .catch((error: unknown) => {
        for (const waiter of this.queue(key).splice(0)) waiter.reject(error);
      })
      .finally(() => {
        this.pumping.set(key, false);
        if (this.again.delete(key)) this.pump(key);
      });
  }

  /** Looks again at `until` (clock ms), or soon when the wait is for an answer. */
  wakeLater(key: string, until: number | null): void {
    if (until === null || !Number.isFinite(until)) {
      if (this.pollTimers.has(key)) return;
      const timer = setTimeout(() => {
        this.pollTimers.delete(key);
        this.pump(key);
      }, ANSWER_POLL_MS);
      timer.unref();
      this.pollTimers.set(key, timer);
      return;
    }
    const { clock, skewMs } = this.options;
    const existing = this.timers.get(key);
    if (existing && existing.due <= until) return;
    existing?.controller.abort();
    const controller = new AbortController();
    this.timers.set(key, { due: until, controller });
    clock.sleep(Math.max(0, until + skewMs - clock.now()), controller.signal).then(
      () => {
        if (this.timers.get(key)?.controller === controller) this.timers.delete(key);
        this.pump(key);
      },
      () => {},
    );
  }

  /** Stops the wake-ups; no drain starts after this. */
  close(): void {
    this.closed = true;
    for (const timer of this.pollTimers.values()) clearTimeout(timer);
    for (const { controller } of this.timers.values()) controller.abort();
  }

  private queue(key: string): Waiter<T>[] {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }
}
