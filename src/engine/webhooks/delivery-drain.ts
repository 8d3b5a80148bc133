/**
 * The jobs a session gave its webhook URL whose final delivery (`done` or `error`) has not
 * reached its receiver yet. A session that stops for a reason other than Ctrl-C (a budget stop,
 * a daily limit) waits for them before its receiver closes, so their deliveries find it: each
 * delivery that fails counts toward the account's breaker (docs/running.md, "Ending a session
 * with jobs in flight").
 */
import type { Clock } from '../../common/index.js';
import { TERMINAL_JOB_STATUSES } from '../../service/index.js';

const FINAL: ReadonlySet<string> = new Set(TERMINAL_JOB_STATUSES);

export class DeliveryDrain {
  private readonly awaiting = new Set<string>();
  private readonly finals = new Set<string>();
  private wake: (() => void) | undefined;

  /** A job given this session's URL (its submission was answered, or it was adopted). */
  given(requestId: string): void {
    if (!this.finals.has(requestId)) this.awaiting.add(requestId);
  }

  /** A verified delivery for `requestId` with the job's `status`. */
  delivered(requestId: string, status: string): void {
    if (!FINAL.has(status)) return;
    this.finals.add(requestId);
    if (this.awaiting.delete(requestId) && this.awaiting.size === 0) this.wake?.();
  }

  /** Jobs given the URL whose final delivery has not come. */
  get outstanding(): number {
    return this.awaiting.size;
  }

  /** Waits (clock ms, Infinity: without bound) until every final delivery came; resolves with how many did not. */
  async settle(boundMs: number, clock: Clock, signal?: AbortSignal): Promise<number> {
    if (this.awaiting.size === 0 || boundMs <= 0) return this.awaiting.size;
    const done = new AbortController();
    this.wake = () => done.abort();
    const stop = signal === undefined ? done.signal : AbortSignal.any([signal, done.signal]);
    if (stop.aborted) return this.awaiting.size;
    try {
      if (Number.isFinite(boundMs)) await clock.sleep(boundMs, stop);
      else await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
    } catch {
      // Woken: every final delivery came, or the wait was cut short.
    } finally {
      this.wake = undefined;
    }
    return this.awaiting.size;
  }
}
