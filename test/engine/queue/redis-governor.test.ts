/**
 * The shared rate governor: several governors (each as a separate process would have it:
 * its own connections and owner id) spending one account through one Redis, against the
 * emulator over loopback.
 */
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { DailyLimitError } from '../../../src/client/errors/daily-limit-error.js';
import { accountScope } from '../../../src/engine/queue/account-scope.js';
import { openSharedGovernor, type SharedGovernor } from '../../../src/engine/queue/open-governor.js';
import { parseRedisUrl } from '../../../src/engine/queue/redis-url.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import { statusCount, useEmulator } from '../../client/support.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { skipWithout } from '../../helpers/system-deps.js';

/** Skipped, saying so, where redis-server is not installed (failing instead in CI). */
const WITHOUT_REDIS = skipWithout('redis-server');

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };
const limited = (rpm: number, rpd: number | null = null) => ({ time_scale: 60, rate_limits: { endpoints: { 'images/generations': { rpm, rpd } } } });

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** A governor as one process would open it; `scope` decides which account's buckets it shares. */
async function useGovernor(emulator: RunningEmulator, scope: string, heartbeatMs?: number, skewMarginMs?: number): Promise<SharedGovernor> {
  const shared = await openSharedGovernor(parseRedisUrl(redis.url, '--governor'), {
    scope,
    clock: emulator.clock,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(skewMarginMs === undefined ? {} : { skewMarginMs }),
  });
  onTestFinished(() => shared.close());
  return shared;
}

function useClientOn(emulator: RunningEmulator, shared: SharedGovernor): DeapiClient {
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock: emulator.clock, governor: shared.governor });
  onTestFinished(() => client.close());
  return client;
}

describe.skipIf(WITHOUT_REDIS)('rate governor shared through Redis', () => {
  test('three processes submitting at once share one bucket: not a single 429', async () => {
    const emulator = await useEmulator(limited(6));
    const scope = accountScope(emulator.url, emulator.keys.api);
    const clients = await Promise.all([0, 1, 2].map(async () => useClientOn(emulator, await useGovernor(emulator, scope))));
    await Promise.all(clients.flatMap((client) => Array.from({ length: 8 }, () => client.submit('image.generate', IMAGE))));
    expect(statusCount(emulator, 429)).toBe(0);
    expect(emulator.stats().submissions).toBe(24);
    expect(emulator.stats().requests).toBe(24);
  });

  test('a model with its own rate (X-RateLimit-Source: model) gets a bucket of its own, shared too: no 429 but the one a second probe may meet', async () => {
    const emulator = await useEmulator({ time_scale: 60, rate_limits: { endpoints: { 'images/generations': { rpm: 50 } }, models: { Flux1schnell: { rpm: 3 } } } });
    const scope = accountScope(emulator.url, emulator.keys.api);
    const governors = await Promise.all([0, 1].map(() => useGovernor(emulator, scope)));
    const clients = governors.map((shared) => useClientOn(emulator, shared));
    await Promise.all(clients.flatMap((client) => Array.from({ length: 4 }, () => client.submit('image.generate', IMAGE))));
    // Each process probes the model's route itself, through the pool's bucket: the probe of the
    // second is not counted in the model's bucket and may meet its limit (once).
    expect(statusCount(emulator, 429)).toBeLessThanOrEqual(1);
    expect(emulator.stats().submissions).toBe(8);
    for (const shared of governors) expect(shared.governor.describe()).toContainEqual(expect.objectContaining({ bucket: 'images/generations#model:Flux1schnell', limit: 3 }));
  });

  test('each process sees what is left of a shared window (room) and how many of its own requests wait', async () => {
    const emulator = await useEmulator(limited(6));
    const scope = accountScope(emulator.url, emulator.keys.api);
    const [a, b] = await Promise.all([0, 1].map(() => useGovernor(emulator, scope)));
    const [first, second] = [useClientOn(emulator, a!), useClientOn(emulator, b!)];
    await Promise.all([...Array.from({ length: 2 }, () => first.submit('image.generate', IMAGE)), second.submit('image.generate', IMAGE)]);
    const bucket = (shared: SharedGovernor) => shared.governor.describe().find((v) => v.bucket === 'images/generations');
    expect(bucket(a!)).toMatchObject({ state: 'known', limit: 6, waiting: 0 });
    // 3 of 6 spent between the two processes; the other process's may not be read back yet here.
    expect(bucket(b!)?.room).toBeLessThanOrEqual(5);
    expect(bucket(a!)?.room).toBeLessThanOrEqual(4);
  });

  test('stops at the daily limit without sending the request that would be refused', async () => {
    const emulator = await useEmulator(limited(100, 3));
    const client = useClientOn(emulator, await useGovernor(emulator, accountScope(emulator.url, emulator.keys.api)));
    for (let i = 0; i < 3; i++) await client.submit('image.generate', IMAGE);
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DailyLimitError);
    expect((error as DailyLimitError).code).toBe('E_API_DAILY_LIMIT');
    expect((error as DailyLimitError).serviceMessage).toMatch(/^not sent: the daily limit of the "images\/generations" rate-limit bucket is used up until /);
    expect((error as DailyLimitError).resetAt).toBeGreaterThan(emulator.clock.now());
    expect(emulator.stats().requests).toBe(3);
    expect(statusCount(emulator, 429)).toBe(0);
  });

  test('governors of different accounts do not share (the 429s a shared bucket prevents)', async () => {
    const emulator = await useEmulator(limited(6));
    const clients = await Promise.all(['a', 'b', 'c'].map(async (scope) => useClientOn(emulator, await useGovernor(emulator, accountScope(emulator.url, scope)))));
    await Promise.all(clients.flatMap((client) => Array.from({ length: 8 }, () => client.submit('image.generate', IMAGE))));
    expect(statusCount(emulator, 429)).toBeGreaterThan(0);
    expect(emulator.stats().submissions).toBe(24);
  });

  test('a limit one process learns reaches the others as their own event', async () => {
    const emulator = await useEmulator(limited(5));
    const scope = accountScope(emulator.url, emulator.keys.api);
    const [a, b] = [await useGovernor(emulator, scope), await useGovernor(emulator, scope)];
    const heard: { bucket: string; limit: number }[] = [];
    b.governor.on('limitLearned', (e) => heard.push({ bucket: e.bucket, limit: e.limit }));
    await useClientOn(emulator, a).submit('image.generate', IMAGE);
    await expect.poll(() => heard).toEqual([{ bucket: 'images/generations', limit: 5 }]);
  });

  test('the slot of a process that died while its request was out is taken back', async () => {
    const emulator = await useEmulator(limited(6));
    const scope = accountScope(emulator.url, emulator.keys.api);
    const doomed = await useGovernor(emulator, scope, 100);
    // The first request of a bucket learns its limits; everyone else waits for its answer.
    const permit = await doomed.governor.acquire({ pool: 'images/generations', method: 'POST', path: '/api/v2/images/generations' });
    expect(permit.bucket).toBe('images/generations');
    await doomed.close(); // no settle: as if the process had been killed
    const survivor = useClientOn(emulator, await useGovernor(emulator, scope, 100));
    await survivor.submit('image.generate', IMAGE);
    expect(emulator.stats().submissions).toBe(1);
  });

  test('waiters are served oldest first across processes: one that looks first when a window opens leaves it to older waiters of another', async () => {
    const emulator = await useEmulator(limited(6));
    const scope = accountScope(emulator.url, emulator.keys.api);
    // `late` looks at a window 20 virtual seconds after it opens; `early` at once.
    const [late, early] = [await useGovernor(emulator, scope, undefined, 20_000), await useGovernor(emulator, scope)];
    const [lateClient, earlyClient] = [useClientOn(emulator, late), useClientOn(emulator, early)];
    const order: string[] = [];
    const older = Array.from({ length: 12 }, (_, i) => lateClient.submit('image.generate', { ...IMAGE, seed: i }).then(() => order.push('older')));
    await expect.poll(() => order.length).toBeGreaterThanOrEqual(6);
    // The second window's room belongs to the 6 older waiters still waiting in the other process.
    const newer = Array.from({ length: 6 }, (_, i) => earlyClient.submit('image.generate', { ...IMAGE, seed: 100 + i }).then(() => order.push('newer')));
    await Promise.all([...older, ...newer]);
    expect(order).toEqual([...Array.from({ length: 12 }, () => 'older'), ...Array.from({ length: 6 }, () => 'newer')]);
    expect(statusCount(emulator, 429)).toBe(0);
  });

  test('counts its Redis calls', async () => {
    const emulator = await useEmulator(limited(60));
    const shared = await useGovernor(emulator, accountScope(emulator.url, emulator.keys.api));
    const client = useClientOn(emulator, shared);
    for (let i = 0; i < 5; i++) await client.submit('image.generate', IMAGE);
    // One write to take a slot and one to settle it, per request (nobody else writes here).
    expect(shared.governor.redisCalls).toBeLessThanOrEqual(5 * 2 + 3);
  });
});
