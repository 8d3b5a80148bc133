/**
 * A clock that moves only when a test says so: windows, expiries and Retry-After can then be
 * checked exactly, without waiting.
 */
import type { Clock } from '../../src/common/clock.js';

export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and wakes the sleepers that are due. */
  advance(ms: number): void;
}

export function createManualClock(startMs = Date.UTC(2025, 0, 15, 12, 0, 0)): ManualClock {
  let now = startMs;
  let sleepers: { at: number; wake: () => void }[] = [];
  return {
    now: () => now,
    realPerVirtual: 1,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const sleeper = { at: now + ms, wake: resolve };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', () => {
          sleepers = sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        });
      });
    },
    advance(ms) {
      now += ms;
      const due = sleepers.filter((s) => s.at <= now);
      sleepers = sleepers.filter((s) => s.at > now);
      for (const s of due) s.wake();
    },
  };
}
