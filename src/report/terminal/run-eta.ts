import type { RunEvent } from '../../engine/index.js';
import type { ProgressTotals } from '../files/run-tally.js';

/**
 * An estimate of the time left, in real time (the reader's clock, never the emulator's): the
 * real time this session has taken per item that needed work (settled at the service, not
 * served from the cache or skipped), times the items not settled yet. Unknown until one such
 * item has settled.
 */
export class RunEta {
  private startedAt: number | null = null;
  private worked = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  apply(event: RunEvent): void {
    switch (event.type) {
      case 'run-started':
        this.startedAt = this.realNow();
        return;
      case 'item-done':
        if (!event.cached) this.worked += 1;
        return;
      case 'item-failed':
      case 'item-timed-out':
      case 'item-unknown':
        this.worked += 1;
        return;
      default:
        return;
    }
  }

  /** Real milliseconds left, or undefined while there is nothing to go by. */
  remainingMs(totals: ProgressTotals): number | undefined {
    const left = totals.items - totals.done - totals.failed - totals.skipped - totals.unknown;
    if (left <= 0) return 0;
    if (this.startedAt === null || this.worked === 0) return undefined;
    return ((this.realNow() - this.startedAt) / this.worked) * left;
  }
}
