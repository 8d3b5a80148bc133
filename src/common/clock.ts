/**
 * Time as deflow sees it. Everything that waits or reads the time takes a `Clock`, so the
 * client, the engine and the emulator can share one virtual clock in tests and benchmarks
 * (a 60 s rate window then lasts 60 / timeScale real seconds).
 */
export interface Clock {
  /** Milliseconds since the epoch, on this clock. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time; rejects with the signal's reason on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Real milliseconds per clock millisecond (1 for real time, 1/30 at time_scale 30). */
  readonly realPerVirtual: number;
}

/** The process's real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepReal(ms, signal),
  realPerVirtual: 1,
};

/** Options for {@link createVirtualClock}. */
export interface VirtualClockOptions {
  /**
   * Virtual seconds that pass per real second.
   * @default 1
   */
  timeScale?: number;
  /**
   * Virtual epoch milliseconds at creation.
   * @default Date.now()
   */
  startMs?: number;
}

/** A clock that runs `timeScale` times faster than real time, anchored at `startMs`. */
export function createVirtualClock(options: VirtualClockOptions = {}): Clock {
  const scale = options.timeScale ?? 1;
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new RangeError(`timeScale must be a positive number, got ${String(options.timeScale)}`);
  }
  const realStart = performance.now();
  const virtualStart = options.startMs ?? Date.now();
  return {
    now: () => virtualStart + (performance.now() - realStart) * scale,
    sleep: (ms, signal) => sleepReal(ms / scale, signal),
    realPerVirtual: 1 / scale,
  };
}

function sleepReal(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
