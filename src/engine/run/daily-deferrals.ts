/**
 * Daily limits per pool. A 429 with `X-RateLimit-Type: daily` (or the governor knowing the
 * day is used up) stops that pool only: its jobs are deferred (state `deferred`, with the
 * `X-RateLimit-Daily-Reset` time) and every other pool goes on. A run that resumes before the
 * reset knows the window from its journal and sends nothing to the pool; `--wait-daily` waits
 * for the reset instead of deferring.
 */
import type { Clock } from '../../common/index.js';
import type { DeferredPool, RunEventSink } from '../contracts/events.js';

/** Options of {@link DailyDeferrals}. */
export interface DailyDeferralOptions {
  readonly clock: Clock;
  readonly sink: RunEventSink;
  /** Pools whose daily window an earlier session of the run found used up: pool → clock ms it refills. */
  readonly windows?: ReadonlyMap<string, number> | undefined;
  /** `--wait-daily`: wait for the reset instead of deferring. @default false */
  readonly wait?: boolean;
}

/** A little past the reset, so the first request after it lands in the new day. */
const RESET_MARGIN_MS = 1000;

export class DailyDeferrals {
  readonly wait: boolean;
  /** Pool → clock ms when its day refills (NaN: used up, reset unknown). */
  private readonly windows = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  /** Pool → the latest reset seen (kept after the window refills, for the summary). */
  private readonly resets = new Map<string, number>();
  private readonly announced = new Map<string, number>();

  constructor(private readonly options: DailyDeferralOptions) {
    this.wait = options.wait ?? false;
    for (const [pool, resetAt] of options.windows ?? []) this.windows.set(pool, resetAt);
  }

  /**
   * When `pool` may be sent to again: a clock ms in the future, NaN when it is used up for
   * this run with no known reset, or undefined when it is open.
   */
  closedUntil(pool: string): number | undefined {
    const resetAt = this.windows.get(pool);
    if (resetAt === undefined) return undefined;
    if (Number.isNaN(resetAt) || this.options.clock.now() < resetAt) return resetAt;
    this.windows.delete(pool);
    return undefined;
  }

  /** A daily refusal for `pool` (resetAt: clock ms, undefined when the service did not say). */
  close(pool: string, resetAt: number | undefined): void {
    const known = resetAt !== undefined && Number.isFinite(resetAt) ? resetAt + RESET_MARGIN_MS : Number.NaN;
    const current = this.windows.get(pool);
    if (current === undefined || Number.isNaN(current) || known > current) this.windows.set(pool, known);
    const shown = this.windows.get(pool)!;
    this.resets.set(pool, shown);
    if (this.announced.get(pool) === shown || (Number.isNaN(shown) && Number.isNaN(this.announced.get(pool) ?? 0))) return;
    this.announced.set(pool, shown);
    this.options.sink({ type: 'daily-limit', ts: this.options.clock.now(), pool, resetAt: Number.isNaN(shown) ? null : shown, wait: this.wait && !Number.isNaN(shown) });
  }

  /** Counts an item deferred to `pool`. */
  counted(pool: string): void {
    this.counts.set(pool, (this.counts.get(pool) ?? 0) + 1);
  }

  /** Waits until `pool` refills (`--wait-daily`); false when its reset is unknown (nothing to wait for). */
  async waitFor(pool: string, signal: AbortSignal): Promise<boolean> {
    const until = this.closedUntil(pool);
    if (until === undefined) return true;
    if (Number.isNaN(until)) return false;
    await this.options.clock.sleep(until - this.options.clock.now(), signal);
    return true;
  }

  /** The pools items were deferred to in this session, with their reset times. */
  summary(): DeferredPool[] {
    return [...this.counts].map(([pool, items]) => {
      const resetAt = this.resets.get(pool) ?? this.windows.get(pool);
      return { pool, resetAt: resetAt === undefined || Number.isNaN(resetAt) ? null : resetAt, items };
    });
  }
}
