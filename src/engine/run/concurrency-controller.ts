/**
 * How many jobs of each step may be in flight (submitted or waiting to be, not yet finished).
 * The rate governor is the real limiter; this bound only has to be high enough never to hold
 * the governor back, and low enough to keep memory and budget reservations in proportion.
 * By Little's law a pool of R requests per W seconds whose jobs stay in flight d seconds
 * needs R/W × d jobs in flight to keep up, plus R to use the burst a fixed window allows at
 * its start: C = ⌈R/W × d × 1.2⌉ + R, with d the poll estimator's figure for the step.
 */
import type { Governor } from '../../client/index.js';

/** Options of {@link ConcurrencyController}. */
export interface ConcurrencyOptions {
  /** `--concurrency`: jobs in flight across the run. @default no global bound beyond the steps' */
  readonly global?: number | undefined;
  /**
   * Jobs of a step in flight while its pool's limits are unknown.
   * @default 16
   */
  readonly learning?: number;
  /**
   * Jobs of a step in flight when its pool is not throttled at all.
   * @default 256
   */
  readonly unthrottled?: number;
  /**
   * Upper bound of a derived step limit.
   * @default 2000
   */
  readonly max?: number;
}

interface PoolRate {
  readonly limit: number;
  readonly windowSeconds: number;
}

export class ConcurrencyController {
  private readonly rates = new Map<string, PoolRate>();
  private readonly free = new Set<string>();
  private readonly listeners: (() => void)[] = [];
  private readonly learning: number;
  private readonly unthrottled: number;
  private readonly max: number;
  readonly global: number;

  constructor(
    private readonly governor: Governor | null,
    options: ConcurrencyOptions = {},
  ) {
    this.global = options.global ?? Number.POSITIVE_INFINITY;
    this.learning = options.learning ?? 16;
    this.unthrottled = options.unthrottled ?? 256;
    this.max = options.max ?? 2000;
    if (!(this.global >= 1)) throw new RangeError(`concurrency: expected a number ≥ 1, got ${String(options.global)}`);
    for (const bucket of governor?.describe() ?? []) {
      if (bucket.state === 'known') this.learn(bucket.bucket.split('#model:')[0]!, bucket.limit, bucket.windowSeconds, bucket.bucket.includes('#model:'));
    }
    governor?.on('limitLearned', this.onLearned);
  }

  /** Stops listening to the governor. */
  close(): void {
    this.governor?.off('limitLearned', this.onLearned);
  }

  /** Calls `listener` whenever a limit may have grown (a pool's rate became known). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private readonly onLearned = (event: { pool: string; model?: string; limit: number; windowSeconds: number }): void => {
    this.learn(event.pool, event.limit, event.windowSeconds, event.model !== undefined);
    // Let the governor's event finish first: a listener may start requests.
    queueMicrotask(() => {
      for (const listener of this.listeners) listener();
    });
  };

  private learn(pool: string, limit: number, windowSeconds: number, perModel: boolean): void {
    const known = this.rates.get(pool);
    // Several buckets (per-model ones) can share a pool: size for the slowest.
    if (!known || !perModel || limit / windowSeconds < known.limit / known.windowSeconds) this.rates.set(pool, { limit, windowSeconds });
  }

  /**
   * The bound of a step. `configured` is the workflow's own `concurrency` for it; `typicalMs`
   * how long one of its jobs stays in flight.
   */
  stepLimit(pool: string, configured: number | undefined, typicalMs: number): number {
    if (configured !== undefined) return configured;
    if (this.governor === null) return this.unthrottled;
    const rate = this.rates.get(pool);
    if (rate === undefined) return this.isUnthrottled(pool) ? this.unthrottled : this.learning;
    const perSecond = rate.limit / rate.windowSeconds;
    const derived = Math.ceil(perSecond * (typicalMs / 1000) * 1.2) + rate.limit;
    return Math.max(1, Math.min(this.max, derived));
  }

  private isUnthrottled(pool: string): boolean {
    if (this.free.has(pool)) return true;
    // A bucket that answered without rate-limit headers stays unthrottled for the run.
    const free = this.governor?.describe().some((b) => b.bucket === pool && b.state === 'unthrottled') ?? false;
    if (free) this.free.add(pool);
    return free;
  }
}
