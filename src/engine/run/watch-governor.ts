/**
 * Turns the rate governor's news into run events: a 429 that closed a window (`throttled`),
 * a wait for an ordinary window to refill (`rate-wait`, once per wait: the governor working as
 * intended, which timelines show), and a used-up daily window (`daily-limit`).
 */
import type { Governor, GovernorEvents } from '../../client/index.js';
import type { Clock } from '../../common/index.js';
import type { RunEventSink } from '../contracts/events.js';

/**
 * Starts forwarding; returns the function that stops it. `daily: false` leaves used-up daily
 * windows to the caller (the embedded run defers per pool and says so itself).
 */
export function watchGovernor(governor: Governor, clock: Clock, sink: RunEventSink, options: { daily?: boolean } = {}): () => void {
  const onThrottled = (event: GovernorEvents['throttled'][0]): void => {
    const now = clock.now();
    const pool = event.model ? `${event.pool} (${event.model})` : event.pool;
    const waitMs = Math.max(0, (event.until ?? now) - now);
    if (event.reason === '429') {
      sink({ type: 'throttled', ts: now, pool, waitMs });
      return;
    }
    // The rate it waits for, so a progress view can say `audio/speech: 20/min, next window in 42 s`.
    const bucket = governor.describe().find((b) => b.bucket === event.bucket);
    sink({ type: 'rate-wait', ts: now, pool, waitMs, ...(bucket !== undefined && bucket.limit > 0 ? { limit: bucket.limit, windowSeconds: bucket.windowSeconds } : {}) });
  };
  const onDaily = (event: GovernorEvents['dailyExhausted'][0]): void => {
    sink({ type: 'daily-limit', ts: clock.now(), pool: event.model ? `${event.pool} (${event.model})` : event.pool, resetAt: Number.isFinite(event.resetAt) ? event.resetAt : null });
  };
  governor.on('throttled', onThrottled);
  if (options.daily !== false) governor.on('dailyExhausted', onDaily);
  return () => {
    governor.off('throttled', onThrottled);
    governor.off('dailyExhausted', onDaily);
  };
}
