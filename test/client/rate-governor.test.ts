import { describe, expect, test } from 'vitest';
import { DailyLimitError } from '../../src/client/errors/daily-limit-error.js';
import { RateGovernor } from '../../src/client/rate-governor.js';
import { statusCount, useClient, useEmulator } from './support.js';

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };
const ZIMAGE = { ...IMAGE, model: 'ZImageTurbo_INT8', guidance: 1 };
const limited = (rpm: number, rpd: number | null = null) => ({ rate_limits: { endpoints: { 'images/generations': { rpm, rpd } } } });

describe('rate governor against the emulator', () => {
  test('paces sequential submissions without a single 429', async () => {
    const emulator = await useEmulator(limited(4));
    const client = useClient(emulator);
    for (let i = 0; i < 10; i++) await client.submit('image.generate', IMAGE);
    expect(statusCount(emulator, 429)).toBe(0);
    expect(emulator.stats().requests).toBe(10);
    expect(emulator.stats().submissions).toBe(10);
  });

  test('paces parallel submissions: every request is accepted the first time', async () => {
    const emulator = await useEmulator(limited(5));
    const client = useClient(emulator);
    const learned: number[] = [];
    client.governor!.on('limitLearned', (e) => learned.push(e.limit));
    await Promise.all(Array.from({ length: 23 }, () => client.submit('image.generate', IMAGE)));
    expect(statusCount(emulator, 429)).toBe(0);
    expect(emulator.stats().requests).toBe(23);
    expect(learned).toEqual([5]);
  });

  test('reports a request that has to wait for the window to refill', async () => {
    const emulator = await useEmulator(limited(2));
    const client = useClient(emulator);
    const throttled: { bucket: string; reason: string; until: number | null }[] = [];
    client.governor!.on('throttled', (e) => throttled.push(e));
    await Promise.all(Array.from({ length: 3 }, () => client.submit('image.generate', IMAGE)));
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]).toMatchObject({ bucket: 'images/generations', reason: 'window' });
    expect(statusCount(emulator, 429)).toBe(0);
  });

  test('gives a model with its own rate (X-RateLimit-Source: model) its own bucket', async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { 'images/generations': { rpm: 50 } }, models: { Flux1schnell: { rpm: 2 } } } });
    const client = useClient(emulator);
    const learned: { bucket: string; limit: number }[] = [];
    client.governor!.on('limitLearned', (e) => learned.push({ bucket: e.bucket, limit: e.limit }));
    await Promise.all([
      ...Array.from({ length: 5 }, () => client.submit('image.generate', IMAGE)),
      ...Array.from({ length: 5 }, () => client.submit('image.generate', ZIMAGE)),
    ]);
    expect(statusCount(emulator, 429)).toBe(0);
    expect(emulator.stats().requests).toBe(10);
    expect(learned).toContainEqual({ bucket: 'images/generations#model:Flux1schnell', limit: 2 });
    expect(learned).toContainEqual({ bucket: 'images/generations', limit: 50 });
  });

  test('keeps the quote pool apart from the submission pool', async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { 'images/generations': { rpm: 2 } }, quote: { rpm: 3 } } });
    const client = useClient(emulator);
    await Promise.all([
      ...Array.from({ length: 4 }, () => client.submit('image.generate', IMAGE)),
      ...Array.from({ length: 7 }, () => client.price('image.generate', IMAGE)),
    ]);
    expect(statusCount(emulator, 429)).toBe(0);
    const buckets = client.governor!.describe().map((b) => [b.bucket, b.limit]);
    expect(buckets).toEqual(expect.arrayContaining([['images/generations', 2], ['quote', 3]]));
  });

  test('lets requests of an unthrottled pool through without waiting', async () => {
    const emulator = await useEmulator({ rate_limits: { quote: null } });
    const client = useClient(emulator);
    const throttled: unknown[] = [];
    client.governor!.on('throttled', (e) => throttled.push(e));
    await Promise.all(Array.from({ length: 30 }, () => client.price('image.generate', IMAGE)));
    expect(emulator.stats().quotes).toBe(30);
    expect(throttled).toEqual([]);
    expect(client.governor!.describe().find((b) => b.bucket === 'quote')?.state).toBe('unthrottled');
  });

  test('stops at the daily limit without sending the request that would be refused', async () => {
    const emulator = await useEmulator(limited(100, 3));
    const client = useClient(emulator);
    const exhausted: number[] = [];
    client.governor!.on('dailyExhausted', (e) => exhausted.push(e.resetAt));
    for (let i = 0; i < 3; i++) await client.submit('image.generate', IMAGE);
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DailyLimitError);
    expect((error as DailyLimitError).code).toBe('E_API_DAILY_LIMIT');
    expect((error as DailyLimitError).resetAt).toBeGreaterThan(emulator.clock.now());
    await expect(client.submit('image.generate', IMAGE)).rejects.toBeInstanceOf(DailyLimitError);
    expect(emulator.stats().requests).toBe(3);
    expect(statusCount(emulator, 429)).toBe(0);
    expect(exhausted.length).toBeGreaterThan(0);
  });

  test('waits for the next day instead when told to', async () => {
    const emulator = await useEmulator({ time_scale: 2000, rate_limits: { day_window_s: 120, endpoints: { 'images/generations': { rpm: 100, rpd: 2 } } } });
    const client = useClient(emulator, { governor: new RateGovernor({ clock: emulator.clock, onDailyLimit: 'wait' }) });
    await Promise.all(Array.from({ length: 4 }, () => client.submit('image.generate', IMAGE)));
    expect(emulator.stats().submissions).toBe(4);
    expect(statusCount(emulator, 429)).toBe(0);
  });

  test('meets at most one 429 while learning a window someone else already spent', async () => {
    const emulator = await useEmulator(limited(3));
    const other = useClient(emulator, { governor: false });
    for (let i = 0; i < 3; i++) await other.submit('image.generate', IMAGE);
    const client = useClient(emulator);
    await Promise.all(Array.from({ length: 6 }, () => client.submit('image.generate', IMAGE)));
    expect(statusCount(emulator, 429)).toBeLessThanOrEqual(1);
    expect(emulator.stats().submissions).toBe(9);
  });

  test('a waiting request is cancelled by its AbortSignal and never sent', async () => {
    const emulator = await useEmulator({ time_scale: 10, ...limited(1) });
    const client = useClient(emulator);
    await client.submit('image.generate', IMAGE);
    const controller = new AbortController();
    const waiting = client.submit('image.generate', IMAGE, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(emulator.stats().requests).toBe(1);
  });

  test('two clients sharing one governor share its buckets', async () => {
    const emulator = await useEmulator(limited(4));
    const governor = new RateGovernor({ clock: emulator.clock });
    const a = useClient(emulator, { governor });
    const b = useClient(emulator, { governor });
    await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).submit('image.generate', IMAGE)));
    expect(statusCount(emulator, 429)).toBe(0);
  });
});
