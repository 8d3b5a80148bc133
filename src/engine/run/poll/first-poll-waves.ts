/**
 * First polls of a key in waves. Jobs submitted together (a fan-out's first window) all plan
 * their first poll on the same estimate, and a few scouts' durations are a noisy one: when it
 * is short, every job of the batch pays a second poll. So first polls due at once go out a few at a
 * time: the rest wait for those answers (one round trip), which move the estimate (a job found
 * running, its end read from its progress), and re-plan on it. A wave that did not move the
 * estimate later doubles the next one, so a batch of n jobs is polled in about log2(n/4) round
 * trips when the estimate is right.
 */

/** First polls of one key in flight at once, at first and after a wave moved the estimate later. */
const FIRST_WAVE = 4;

/** Largest wave. */
const MAX_WAVE = 256;

interface KeyWaves {
  inFlight: number;
  size: number;
  /** Some answer of the wave in flight moved the estimate later. */
  raised: boolean;
  waiters: Array<() => void>;
}

/** Per-key gate of first polls, shared by every job of a run. */
export class FirstPollWaves {
  private readonly keys = new Map<string, KeyWaves>();

  /**
   * A job's first poll of `key` is due: undefined when it may go now (it is counted in flight
   * until {@link leave}), else a promise that resolves when the wave in flight has answered
   * (then re-plan on the estimate and ask again).
   */
  enter(key: string): Promise<void> | undefined {
    let waves = this.keys.get(key);
    if (!waves) {
      waves = { inFlight: 0, size: FIRST_WAVE, raised: false, waiters: [] };
      this.keys.set(key, waves);
    }
    if (waves.inFlight < waves.size) {
      waves.inFlight++;
      return undefined;
    }
    const wave = waves;
    return new Promise<void>((resolve) => wave.waiters.push(resolve));
  }

  /** A first poll let in by {@link enter} was answered (or failed); `raised`: its answer moved the estimate later. */
  leave(key: string, raised: boolean): void {
    const waves = this.keys.get(key);
    if (!waves || waves.inFlight === 0) return;
    waves.inFlight--;
    if (raised) waves.raised = true;
    if (waves.inFlight > 0) return;
    // Only a full wave (jobs waited on it) that left the estimate where it was lets the next grow.
    if (waves.raised) waves.size = FIRST_WAVE;
    else if (waves.waiters.length > 0) waves.size = Math.min(MAX_WAVE, waves.size * 2);
    waves.raised = false;
    const waiters = waves.waiters;
    waves.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Resolves when `wait` does, or when `signal` aborts (then it rejects with the signal's reason). */
export function untilOrAborted(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      reject,
    );
  });
}
