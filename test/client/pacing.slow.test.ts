/**
 * Pacing upper bounds, on a discrete-event clock (test/helpers/event-clock.ts): the clock
 * stands still while a request is out and jumps to the next sleeper when nothing else is
 * going on, so the virtual times measured here are exact whatever the machine's load. "No
 * 429" alone is passed by a governor that idles a whole window before every request; these
 * tests bound how long the work takes.
 */
import { describe, expect, onTestFinished, test } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import type { DeapiClientOptions } from '../../src/client/client-options.js';
import { type EmulatorConfigInput, type RunningEmulator, startEmulator } from '../../src/emulator/start-emulator.js';
import { createEventClock, type EventClock } from '../helpers/event-clock.js';
import { statusCount } from './support.js';

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };
const WINDOW_MS = 60_000;

async function setUp(config: EmulatorConfigInput, options: Partial<DeapiClientOptions> = {}): Promise<{ clock: EventClock; emulator: RunningEmulator; client: DeapiClient }> {
  const clock = createEventClock();
  const emulator = await startEmulator({ clock, config, onError: (e) => console.error(e) });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, ...options });
  onTestFinished(async () => {
    await client.close();
    await emulator.close();
    await clock.close();
  });
  return { clock, emulator, client };
}

/** Virtual ms at which the emulator accepted each job, in order. */
const acceptedAt = (emulator: RunningEmulator): number[] => emulator.jobs().map((j) => Date.parse(j.created_at)).sort((a, b) => a - b);

describe('pacing upper bounds (virtual clock)', () => {
  test('600 parallel submissions at 60 rpm finish within 1.05 × the bound of (⌈600/60⌉ − 1) windows, with no 429', { timeout: 60_000 }, async () => {
    const { emulator, client } = await setUp({ rate_limits: { endpoints: { 'images/generations': { rpm: 60, rpd: null } } } });
    await Promise.all(Array.from({ length: 600 }, () => client.submit('image.generate', IMAGE)));
    const times = acceptedAt(emulator);
    expect(times).toHaveLength(600);
    expect(statusCount(emulator, 429)).toBe(0);
    const bound = (Math.ceil(600 / 60) - 1) * WINDOW_MS;
    const span = times[599]! - times[0]!;
    expect(span).toBeGreaterThanOrEqual(bound);
    expect(span).toBeLessThanOrEqual(1.05 * bound);
  });

  test('600 sequential submissions at 60 rpm also finish within 1.05 × the bound', { timeout: 60_000 }, async () => {
    const { emulator, client } = await setUp({ rate_limits: { endpoints: { 'images/generations': { rpm: 60, rpd: null } } } });
    for (let i = 0; i < 600; i++) await client.submit('image.generate', IMAGE);
    const times = acceptedAt(emulator);
    expect(statusCount(emulator, 429)).toBe(0);
    const bound = (Math.ceil(600 / 60) - 1) * WINDOW_MS;
    expect(times[599]! - times[0]!).toBeLessThanOrEqual(1.05 * bound);
  });

  test('without a governor, the first request after a minute 429 is sent within 1 s after Retry-After', async () => {
    const { clock, emulator, client } = await setUp({ rate_limits: { endpoints: { 'images/generations': { rpm: 2, rpd: null } } } }, { governor: false });
    await client.submit('image.generate', IMAGE);
    await client.submit('image.generate', IMAGE);
    const refusedAt = clock.now();
    await client.submit('image.generate', IMAGE);
    expect(statusCount(emulator, 429)).toBe(1);
    const retryAfterMs = 60_000; // the window opened at refusedAt (the clock stood still) and runs 60 s
    const resentAt = acceptedAt(emulator)[2]!;
    expect(resentAt - refusedAt).toBeGreaterThanOrEqual(retryAfterMs);
    expect(resentAt - refusedAt).toBeLessThanOrEqual(retryAfterMs + 1000);
  });

  test('without a governor, a Retry-After 30 s past X-RateLimit-Reset is waited out: the request after the 429 is sent 90 s later, not at the reset (60 s)', async () => {
    const config = { rate_limits: { endpoints: { 'images/generations': { rpm: 2, rpd: null } }, retry_after_offset_s: 30 } };
    const { clock, emulator, client } = await setUp(config, { governor: false });
    await client.submit('image.generate', IMAGE);
    await client.submit('image.generate', IMAGE);
    const refusedAt = clock.now();
    await client.submit('image.generate', IMAGE);
    expect(statusCount(emulator, 429)).toBe(1);
    const resentAt = acceptedAt(emulator)[2]!;
    expect(resentAt - refusedAt).toBeGreaterThanOrEqual(90_000);
    expect(resentAt - refusedAt).toBeLessThanOrEqual(91_000);
  });

  for (const [offset, waitMs] of [
    [30, 90_000],
    [-30, WINDOW_MS],
  ] as const) {
    test(`with the governor, a 429 whose Retry-After is ${offset > 0 ? 'later' : 'sooner'} than X-RateLimit-Reset (offset ${offset} s) is followed by one request ${waitMs / 1000} s after the window opened, and no second 429`, async () => {
      const config = { rate_limits: { endpoints: { 'images/generations': { rpm: 3, rpd: null } }, retry_after_offset_s: offset } };
      const { clock, emulator, client } = await setUp(config);
      const other = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: false });
      onTestFinished(() => other.close());
      for (let i = 0; i < 3; i++) await other.submit('image.generate', IMAGE);
      const openedAt = clock.now();
      await Promise.all(Array.from({ length: 3 }, () => client.submit('image.generate', IMAGE)));
      expect(statusCount(emulator, 429)).toBe(1);
      const times = acceptedAt(emulator);
      expect(times).toHaveLength(6);
      expect(times[3]! - openedAt).toBeGreaterThanOrEqual(waitMs);
      expect(times[3]! - openedAt).toBeLessThanOrEqual(waitMs + 1000);
    });
  }

  test('with the governor, a 429 met while learning a spent window is followed by a request within 1 s after Retry-After', async () => {
    const { clock, emulator, client } = await setUp({ rate_limits: { endpoints: { 'images/generations': { rpm: 3, rpd: null } } } });
    const other = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: false });
    onTestFinished(() => other.close());
    for (let i = 0; i < 3; i++) await other.submit('image.generate', IMAGE);
    const openedAt = clock.now();
    await Promise.all(Array.from({ length: 6 }, () => client.submit('image.generate', IMAGE)));
    expect(statusCount(emulator, 429)).toBe(1);
    const times = acceptedAt(emulator);
    expect(times).toHaveLength(9);
    // The other client's window opened at openedAt; Retry-After pointed at its end.
    expect(times[3]! - openedAt).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(times[3]! - openedAt).toBeLessThanOrEqual(WINDOW_MS + 1000);
    // And the six fill two windows back to back.
    expect(times[8]! - times[3]!).toBeLessThanOrEqual(WINDOW_MS + 1000);
  });
});
