/**
 * A clock that follows a service's clock. A standalone emulator on an accelerated clock
 * (`time_scale` > 1) stamps every answer with `X-Emulator-Clock: <now_ms>;<time_scale>`; a
 * separate deflow process whose client reads that header runs on the emulator's virtual
 * time from then on, so its waits (Retry-After, rate windows, daily resets, polling) and the
 * times it journals are the emulator's. deAPI sends no such header: the clock then stays the
 * system's (real time, `realPerVirtual` 1).
 *
 * Before the first reading it is the system clock. The first reading sets the time (a jump
 * either way); later readings only move it forward (the answer was stamped before it crossed
 * the wire, so a reading behind this clock is the wire's delay, not the service going back),
 * and a different time scale re-anchors it. `now()` never goes backwards after the first
 * reading. A sleep counts the time that passes on the service, not the first reading's jump,
 * and wakes to re-measure when the clock re-anchors (a wait begun in real time finishes in
 * virtual time).
 */
import type { Clock } from './clock.js';

/** The response header a deflow emulator stamps its answers with. */
export const EMULATOR_CLOCK_HEADER = 'X-Emulator-Clock';

/** A reading of a service's clock. */
export interface ServiceClockReading {
  /** Milliseconds since the epoch on the service's clock. */
  readonly nowMs: number;
  /** Virtual seconds per real second. */
  readonly timeScale: number;
}

/** The header's value: `1764210000000;20`. */
export function formatEmulatorClock(reading: ServiceClockReading): string {
  return `${Math.round(reading.nowMs)};${Number(reading.timeScale.toPrecision(12))}`;
}

/** Largest time scale a reading may carry (a day in under 0.1 ms is not a clock to follow). */
const MAX_TIME_SCALE = 1e9;

/** Reads the header's value; undefined when absent or malformed (then nothing is followed). */
export function parseEmulatorClock(value: string | readonly string[] | undefined): ServiceClockReading | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string') return undefined;
  const match = /^\s*(\d{1,16})\s*;\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/i.exec(text);
  if (!match) return undefined;
  const nowMs = Number(match[1]);
  const timeScale = Number(match[2]);
  if (!Number.isSafeInteger(nowMs) || !(timeScale > 0 && timeScale <= MAX_TIME_SCALE)) return undefined;
  return { nowMs, timeScale };
}

/** A clock that takes a service's readings. */
export interface FollowingClock extends Clock {
  /** Takes a reading of the service's clock (the client calls this for every answer carrying one). */
  follow(reading: ServiceClockReading): void;
  /** True once a reading was taken: the clock runs on the service's time. */
  readonly following: boolean;
  /** Virtual seconds per real second (1 until a reading says otherwise). */
  readonly timeScale: number;
}

/** True when `clock` can follow a service's clock. */
export function isFollowingClock(clock: Clock): clock is FollowingClock {
  return typeof (clock as Partial<FollowingClock>).follow === 'function';
}

/** A clock on real time until a service's reading says otherwise. */
export function createFollowingClock(): FollowingClock {
  return new ServiceFollowingClock();
}

class ServiceFollowingClock implements FollowingClock {
  #scale = 1;
  #anchorVirtual = Date.now();
  #anchorReal = performance.now();
  #following = false;
  /** The latest time `now()` returned: it never returns less. */
  #last = Number.NEGATIVE_INFINITY;
  /** The first reading's jump: not time that passed, so sleeps do not count it. */
  #jump = 0;
  /** Sleepers to wake when the clock re-anchors (their real timers were set at the old rate). */
  readonly #wakers = new Set<() => void>();

  get following(): boolean {
    return this.#following;
  }

  get timeScale(): number {
    return this.#scale;
  }

  get realPerVirtual(): number {
    return 1 / this.#scale;
  }

  now(): number {
    const raw = this.#anchorVirtual + (performance.now() - this.#anchorReal) * this.#scale;
    if (raw > this.#last) this.#last = raw;
    return this.#last;
  }

  follow(reading: ServiceClockReading): void {
    const before = this.now();
    if (!this.#following) {
      this.#following = true;
      this.#jump = reading.nowMs - before;
      this.#last = Number.NEGATIVE_INFINITY;
      this.#anchor(reading.nowMs, reading.timeScale);
      return;
    }
    if (reading.timeScale !== this.#scale) {
      this.#anchor(Math.max(before, reading.nowMs), reading.timeScale);
      return;
    }
    if (reading.nowMs > before) this.#anchor(reading.nowMs, this.#scale);
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const start = this.#elapsed();
    for (;;) {
      const left = ms - (this.#elapsed() - start);
      if (!(left > 0)) return;
      await this.#sleepReal(left / this.#scale, signal);
    }
  }

  /** Time that passed on this clock (readings after the first count, the first one's jump does not). */
  #elapsed(): number {
    return this.now() - this.#jump;
  }

  #anchor(virtualMs: number, scale: number): void {
    const rescaled = scale !== this.#scale;
    this.#anchorVirtual = virtualMs;
    this.#anchorReal = performance.now();
    this.#scale = scale;
    if (rescaled) for (const wake of [...this.#wakers]) wake();
  }

  #sleepReal(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#wakers.delete(done);
        resolve();
      };
      const onAbort = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        reject(signal?.reason);
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#wakers.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
