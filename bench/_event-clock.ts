/**
 * A discrete-event virtual clock for tests that assert how long something took: time stands
 * still while anything is in progress and jumps to the earliest sleeper only when the process
 * is quiet (no HTTP request of `dispatcher` outstanding, no file operation pending, nothing new
 * for a few real milliseconds). Measured virtual times are then exact and do not depend on how
 * loaded the machine is: a request that takes 200 real ms under load still takes 0 virtual ms.
 *
 * Use the clock for the emulator and the client, and `dispatcher` as the client's dispatcher.
 * Shared by the tests (test/helpers/event-clock.ts re-exports it) and the benchmarks
 * (`npm run bench -- pipeline --scaled --clock event`): bench/ compiles on its own
 * (tsconfig.bench.json: src and bench), so the clock lives here and tests import it.
 */
import { Agent, type Dispatcher } from 'undici';
import type { Clock } from '../src/common/clock.js';

export interface EventClock extends Clock {
  /** A keep-alive Agent whose requests hold the clock still until their answers are read. */
  readonly dispatcher: Dispatcher;
  /** Stops advancing and closes the dispatcher. */
  close(): Promise<void>;
}

interface Sleeper {
  readonly at: number;
  readonly wake: () => void;
}

/** Real milliseconds the process must stay quiet before the clock jumps. */
const SETTLE_MS = 4;

export function createEventClock(startMs = Date.UTC(2025, 0, 15, 12, 0, 0)): EventClock {
  let now = startMs;
  let sleepers: Sleeper[] = [];
  let busy = 0;
  let version = 0;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const fsPending = (): boolean => process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r === 'FileHandleCloseReq');
  const quiet = (): boolean => busy === 0 && !fsPending();

  // Re-checks every SETTLE_MS real ms; jumps only after one whole quiet period with no news.
  const tick = (seen: number): void => {
    timer = null;
    if (closed || sleepers.length === 0) return;
    const dueNow = sleepers.some((s) => s.at <= now);
    if (!dueNow && (seen !== version || !quiet())) {
      schedule();
      return;
    }
    const at = Math.min(...sleepers.map((s) => s.at));
    now = Math.max(now, at);
    const due = sleepers.filter((s) => s.at <= now);
    sleepers = sleepers.filter((s) => s.at > now);
    version++;
    for (const s of due) s.wake();
    schedule();
  };
  const schedule = (): void => {
    if (timer || closed) return;
    const seen = version;
    timer = setTimeout(() => tick(seen), SETTLE_MS);
  };
  const poke = (): void => {
    version++;
    schedule();
  };

  const track = (dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] =>
    function tracked(opts, handler) {
      busy++;
      poke();
      let open = true;
      const done = (): void => {
        if (!open) return;
        open = false;
        busy--;
        poke();
      };
      const wrapped = new Proxy(handler, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          if (prop === 'onComplete' || prop === 'onError' || prop === 'onResponseEnd' || prop === 'onResponseError') {
            return (...args: unknown[]) => {
              try {
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              } finally {
                done();
              }
            };
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      });
      return dispatch(opts, wrapped);
    };

  const dispatcher = new Agent({ keepAliveTimeout: 10_000 }).compose(track);

  return {
    now: () => now,
    realPerVirtual: 1,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (ms <= 0) return new Promise<void>((resolve) => setImmediate(resolve));
      return new Promise<void>((resolve, reject) => {
        const sleeper: Sleeper = {
          at: now + Math.max(0, ms),
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          sleepers = sleepers.filter((s) => s !== sleeper);
          poke();
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        poke();
      });
    },
    dispatcher,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await dispatcher.close();
    },
  };
}
