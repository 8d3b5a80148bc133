import type { RunEvent } from '../../engine/index.js';
import { findTask } from '../../service/index.js';
import { formatDuration } from '../format-duration.js';

/** What a pool waits for now. */
interface PoolWait {
  readonly pool: string;
  readonly reason: 'window' | '429' | 'daily';
  /** Run-clock ms when the wait ends (null: unknown). */
  readonly until: number | null;
}

/** A pool's learned rate: `limit` requests per `windowSeconds`. */
interface PoolRate {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Folds the governor's news (`rate-wait`, `throttled`, `daily-limit`) into what each pool is
 * waiting for, so the progress views can say `audio/speech: 20/min, next window in 42 s`
 * instead of sitting still, and estimates when the run ends from the learned rates. Times are
 * on the run's clock: virtual on the emulator's accelerated clock (`timeScale` > 1), and
 * labelled so.
 */
export class PoolWaits {
  private readonly waits = new Map<string, PoolWait>();
  private readonly rates = new Map<string, PoolRate>();
  /** Step id → the pool its submissions spend. */
  private readonly stepPools = new Map<string, string>();
  private timeScale = 1;
  private lastTs: number | null = null;
  private lastReal = 0;

  constructor(private readonly realNow: () => number = () => Date.now()) {}

  /** Whether the run's clock is the emulator's accelerated one. */
  get virtual(): boolean {
    return this.timeScale !== 1;
  }

  apply(event: RunEvent): void {
    this.lastTs = event.ts;
    this.lastReal = this.realNow();
    switch (event.type) {
      case 'run-started':
        this.timeScale = event.timeScale ?? 1;
        for (const step of event.steps) {
          const pool = findTask(step.task)?.pool;
          if (pool !== undefined) this.stepPools.set(step.id, pool);
        }
        return;
      case 'rate-wait':
        if (event.limit !== undefined && event.windowSeconds !== undefined) this.rates.set(event.pool, { limit: event.limit, windowSeconds: event.windowSeconds });
        this.waits.set(event.pool, { pool: event.pool, reason: 'window', until: event.ts + event.waitMs });
        return;
      case 'throttled':
        this.waits.set(event.pool, { pool: event.pool, reason: '429', until: event.ts + event.waitMs });
        return;
      case 'daily-limit':
        this.waits.set(event.pool, { pool: event.pool, reason: 'daily', until: event.resetAt });
        return;
      default:
        return;
    }
  }

  /** The run clock now, extrapolated from the last event at the run's time scale. */
  now(): number | null {
    if (this.lastTs === null) return null;
    return this.lastTs + (this.realNow() - this.lastReal) * this.timeScale;
  }

  /** Pools waiting now, each as `audio/speech: 20/min, next window in 42 s`. */
  lines(): string[] {
    const now = this.now();
    if (now === null) return [];
    const out: string[] = [];
    for (const wait of this.waits.values()) {
      if (wait.until !== null && wait.until <= now) {
        this.waits.delete(wait.pool);
        continue;
      }
      out.push(this.describe(wait, now));
    }
    return out;
  }

  /** The pools waiting now, without their countdowns (to tell a change from time passing). */
  signature(): string {
    this.lines();
    return [...this.waits.values()].map((w) => `${w.pool}:${w.reason}`).join(',');
  }

  /** The wait lines of the pools the steps spend, by step id (for the task list). */
  byStep(): Map<string, string> {
    const now = this.now();
    const lines = new Map<string, string>();
    if (now === null) return lines;
    this.lines();
    for (const [step, pool] of this.stepPools) {
      for (const wait of this.waits.values()) {
        if (wait.pool === pool || wait.pool.startsWith(`${pool} (`)) lines.set(step, this.describe(wait, now));
      }
    }
    return lines;
  }

  /**
   * When the run may end: for each pool with a learned rate, its steps' items not yet sent
   * over the rate; the slowest pool decides. Undefined until a rate is known.
   */
  eta(remainingByStep: ReadonlyMap<string, number>): string | undefined {
    const byPool = new Map<string, number>();
    for (const [step, remaining] of remainingByStep) {
      const pool = this.stepPools.get(step);
      if (pool !== undefined && remaining > 0) byPool.set(pool, (byPool.get(pool) ?? 0) + remaining);
    }
    let longest: number | undefined;
    for (const [pool, remaining] of byPool) {
      const rate = this.rates.get(pool) ?? [...this.rates].find(([key]) => key.startsWith(`${pool} (`))?.[1];
      if (rate === undefined || rate.limit <= 0) continue;
      const ms = (remaining / rate.limit) * rate.windowSeconds * 1000;
      if (longest === undefined || ms > longest) longest = ms;
    }
    if (longest === undefined) return undefined;
    // Real time first; on the emulator's accelerated clock its own time beside it, labelled.
    return this.virtual ? `${formatDuration(longest / this.timeScale)} (${formatDuration(longest)} virtual)` : formatDuration(longest);
  }

  private describe(wait: PoolWait, now: number): string {
    const left = wait.until === null ? null : `${formatDuration(Math.max(0, wait.until - now))}${this.virtual ? ' virtual' : ''}`;
    if (wait.reason === 'daily') return `${wait.pool}: daily limit used up${left === null ? '' : `, resets in ${left}`}`;
    if (wait.reason === '429') return `${wait.pool}: refused (429)${left === null ? '' : `, retry in ${left}`}`;
    const rate = this.rates.get(wait.pool);
    const shown = rate === undefined ? '' : `${rate.limit}/${rate.windowSeconds === 60 ? 'min' : `${rate.windowSeconds} s`}, `;
    return `${wait.pool}: ${shown}next window in ${left ?? 'a moment'}`;
  }
}
