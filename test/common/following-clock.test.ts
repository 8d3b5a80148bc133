import { describe, expect, it } from 'vitest';
import { createFollowingClock, formatEmulatorClock, parseEmulatorClock } from '../../src/common/following-clock.js';

const DAY = 86_400_000;
const T = Date.UTC(2030, 0, 1);

describe('the X-Emulator-Clock header', () => {
  it('is "<now_ms>;<time_scale>" and reads back', () => {
    expect(formatEmulatorClock({ nowMs: 1795789434917.4, timeScale: 20_000 })).toBe('1795789434917;20000');
    expect(formatEmulatorClock({ nowMs: 5, timeScale: 1 / (1 / 30) })).toBe('5;30');
    expect(parseEmulatorClock('1795789434917;20000')).toEqual({ nowMs: 1795789434917, timeScale: 20_000 });
    expect(parseEmulatorClock(['1795789434917; 2.5'])).toEqual({ nowMs: 1795789434917, timeScale: 2.5 });
  });

  it('is ignored when absent or malformed', () => {
    for (const value of [undefined, '', '1795789434917', 'x;20', '1795789434917;0', '1795789434917;-3', '1795789434917;Infinity', '1795789434917;20;1', '-5;20']) {
      expect(parseEmulatorClock(value), String(value)).toBeUndefined();
    }
  });
});

describe('a following clock', () => {
  it('is real time until a reading, then the service’s time at its scale', () => {
    const clock = createFollowingClock();
    expect(clock.following).toBe(false);
    expect(clock.realPerVirtual).toBe(1);
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1000);
    clock.follow({ nowMs: T, timeScale: 20_000 });
    expect(clock.following).toBe(true);
    expect(clock.timeScale).toBe(20_000);
    expect(clock.realPerVirtual).toBe(1 / 20_000);
    expect(clock.now()).toBeGreaterThanOrEqual(T);
    expect(clock.now()).toBeLessThan(T + DAY);
  });

  it('never goes back: a reading behind it (the wire’s delay) is ignored, one ahead moves it forward', () => {
    const clock = createFollowingClock();
    clock.follow({ nowMs: T, timeScale: 1 });
    const first = clock.now();
    clock.follow({ nowMs: T - 60_000, timeScale: 1 });
    expect(clock.now()).toBeGreaterThanOrEqual(first);
    expect(clock.now()).toBeLessThan(T + 60_000);
    clock.follow({ nowMs: T + DAY, timeScale: 1 });
    expect(clock.now()).toBeGreaterThanOrEqual(T + DAY);
    // A new time scale re-anchors without going back either.
    clock.follow({ nowMs: T, timeScale: 50 });
    expect(clock.timeScale).toBe(50);
    expect(clock.now()).toBeGreaterThanOrEqual(T + DAY);
  });

  it('sleeps on the service’s time: a virtual day at time scale 1e9 passes at once', async () => {
    const clock = createFollowingClock();
    clock.follow({ nowMs: T, timeScale: 1e9 });
    const before = clock.now();
    await clock.sleep(DAY);
    expect(clock.now() - before).toBeGreaterThanOrEqual(DAY);
  });

  it('wakes a sleep begun on real time when the first reading speeds the clock up, and does not count the reading’s jump', async () => {
    const clock = createFollowingClock();
    let woke = false;
    // An hour of real time, unless the clock starts following an accelerated service.
    const sleeping = clock.sleep(3_600_000).then(() => {
      woke = true;
    });
    // The first reading jumps far ahead: that jump is not time that passed.
    clock.follow({ nowMs: Date.now() + 30 * DAY, timeScale: 1e8 });
    const jumpedTo = clock.now();
    await sleeping;
    expect(woke).toBe(true);
    expect(clock.now() - jumpedTo).toBeGreaterThan(3_000_000);
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = createFollowingClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(DAY, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await expect(clock.sleep(1, controller.signal)).rejects.toThrow('stop');
  });
});
