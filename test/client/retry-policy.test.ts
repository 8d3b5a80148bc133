import { describe, expect, test } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import { DailyLimitError } from '../../src/client/errors/daily-limit-error.js';
import { NetworkError } from '../../src/client/errors/network-error.js';
import { PermissionError } from '../../src/client/errors/permission-error.js';
import { RateLimitError } from '../../src/client/errors/rate-limit-error.js';
import { ServerError } from '../../src/client/errors/server-error.js';
import { startEmulator } from '../../src/emulator/start-emulator.js';
import { freePort, statusCount, useClient, useEmulator } from './support.js';

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };
/** Retries without real waiting (full jitter drawn at 0). */
const FAST = { maxRetries: 3, random: () => 0 };

describe('retry policy', () => {
  test('a 5xx on a GET is retried with backoff, then surfaces as ServerError', async () => {
    const emulator = await useEmulator({ faults: { error_500_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    const error = await client.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).code).toBe('E_API_SERVER');
    expect((error as ServerError).status).toBe(500);
    expect(emulator.stats().requests).toBe(4);
  });

  test('a GET that meets a transient 500 ends with the answer', async () => {
    const emulator = await useEmulator({ seed: 3, faults: { error_500_rate: 0.5 } });
    const client = useClient(emulator, { retry: { maxRetries: 10, random: () => 0 } });
    for (let i = 0; i < 5; i++) expect((await client.balance()).balance).toBe(100);
    expect(statusCount(emulator, 500)).toBeGreaterThan(0);
    expect(emulator.stats().requests).toBe(5 + statusCount(emulator, 500));
  });

  test('a 500 on a submission is not resent by default: the service has no idempotency key', async () => {
    const emulator = await useEmulator({ faults: { error_500_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    await expect(client.submit('image.generate', IMAGE)).rejects.toBeInstanceOf(ServerError);
    expect(emulator.stats().requests).toBe(1);
  });

  test('retrySubmitOn5xx resends a submission after a 500', async () => {
    const emulator = await useEmulator({ faults: { error_500_rate: 1 } });
    const client = useClient(emulator, { retry: { ...FAST, retrySubmitOn5xx: true } });
    await expect(client.submit('image.generate', IMAGE)).rejects.toBeInstanceOf(ServerError);
    expect(emulator.stats().requests).toBe(4);
  });

  test('a quote is resent after a 500: it creates nothing', async () => {
    const emulator = await useEmulator({ faults: { error_500_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    await expect(client.price('image.generate', IMAGE)).rejects.toBeInstanceOf(ServerError);
    expect(emulator.stats().requests).toBe(4);
  });

  test('a connection reset is retried on a GET but not on a submission', async () => {
    const emulator = await useEmulator({ faults: { reset_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    const read = await client.balance().catch((e: unknown) => e);
    expect(read).toBeInstanceOf(NetworkError);
    expect(emulator.stats().requests).toBe(4);
    const submit = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(submit).toBeInstanceOf(NetworkError);
    expect((submit as NetworkError).reachedService).toBe(true);
    expect(emulator.stats().requests).toBe(5);
  });

  test('a submission whose answer was cut short is not resent, because the job exists', async () => {
    const emulator = await useEmulator({ faults: { truncate_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('E_NETWORK');
    expect(emulator.stats().requests).toBe(1);
    expect(emulator.jobs()).toHaveLength(1);
  });

  test('a GET whose answer was cut short is read again', async () => {
    const emulator = await useEmulator({ faults: { truncate_rate: 1 } });
    const client = useClient(emulator, { retry: FAST });
    await expect(client.balance()).rejects.toBeInstanceOf(NetworkError);
    expect(emulator.stats().requests).toBe(4);
  });

  test('a refused connection is resent, even for a submission: nothing reached the service', async () => {
    const port = await freePort();
    const secret = 'retry-test-key-0123456789';
    let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
    let starting: Promise<unknown> | undefined;
    const client = new DeapiClient({
      apiKey: secret,
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxRetries: 6, baseDelayMs: 200, random: () => 1 },
      log: (line) => {
        // The service comes up while the client backs off.
        if (/retrying/.test(line) && !starting) {
          starting = startEmulator({ port, config: { keys: [{ secret, role: 'api' }] } }).then((e) => (emulator = e));
        }
      },
    });
    try {
      const answer = await client.submit('image.generate', IMAGE);
      expect(answer.kind).toBe('job');
      expect(emulator!.jobs()).toHaveLength(1);
    } finally {
      await client.close();
      await starting;
      await emulator?.close();
    }
  });

  test('a refused connection that never recovers ends in NetworkError saying nothing was sent', async () => {
    const port = await freePort();
    const client = new DeapiClient({ apiKey: 'k-0123456789', baseUrl: `http://127.0.0.1:${port}`, retry: FAST });
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).reachedService).toBe(false);
    expect((error as NetworkError).networkCode).toBe('ECONNREFUSED');
  });

  test('a minute 429 is resent only after the window ends (pacing.slow.test.ts bounds the wait from above)', async () => {
    // 60×: the window is 1 s of real time, so three requests land in it even on a loaded machine
    // (at 600× a 100 ms stall let the window roll over and the third request met no 429).
    const emulator = await useEmulator({ time_scale: 60, rate_limits: { endpoints: { 'images/generations': { rpm: 2 } } } });
    const client = useClient(emulator, { governor: false });
    for (let i = 0; i < 3; i++) await client.submit('image.generate', IMAGE);
    expect(statusCount(emulator, 429)).toBe(1);
    expect(emulator.stats().requests).toBe(4);
    const created = emulator.jobs().map((j) => Date.parse(j.created_at));
    // The window opened with the first job and runs 60 virtual seconds.
    expect(created[2]! - created[0]!).toBeGreaterThanOrEqual(59_000);
  });

  test('a daily 429 is not resent: DailyLimitError says when the day window refills', async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { 'images/generations': { rpm: 100, rpd: 2 } } } });
    const client = useClient(emulator, { governor: false });
    await client.submit('image.generate', IMAGE);
    await client.submit('image.generate', IMAGE);
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DailyLimitError);
    expect((error as DailyLimitError).retryAfterSeconds).toBeGreaterThan(80_000);
    expect((error as DailyLimitError).resetAt).toBeGreaterThan(emulator.clock.now());
    expect(emulator.stats().requests).toBe(3);
  });

  test('gives up with RateLimitError after maxRateLimitRetries minute 429s', async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { 'images/generations': { rpm: 1 } } } });
    const client = useClient(emulator, { governor: false, retry: { maxRateLimitRetries: 0 } });
    await client.submit('image.generate', IMAGE);
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('E_API_RATE_LIMITED');
    expect((error as RateLimitError).limitType).toBe('minute');
    expect((error as RateLimitError).retryAfterSeconds).toBeGreaterThan(0);
  });

  test('an IP refusal turned 429 is a permission error, never waited on', async () => {
    const secret = 'ip-test-key-0123456789';
    const emulator = await useEmulator({
      keys: [{ secret, role: 'api', ip_whitelist: ['10.1.2.3'] }],
      rate_limits: { ip_refusals_before_429: 0 },
    });
    const client = useClient(emulator, { apiKey: secret });
    const error = await client.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).status).toBe(429);
    expect(emulator.stats().requests).toBe(1);
  });

  test('a retry waiting out Retry-After holds no request slot', async () => {
    const emulator = await useEmulator({ time_scale: 60, rate_limits: { endpoints: { 'images/generations': { rpm: 1 } } } });
    const client = useClient(emulator, { governor: false, maxInFlight: 1 });
    await client.submit('image.generate', IMAGE);
    const finished: string[] = [];
    const waiting = client.submit('image.generate', IMAGE).then(() => finished.push('retried submission'));
    while (statusCount(emulator, 429) === 0) await new Promise((r) => setTimeout(r, 5));
    await client.balance().then(() => finished.push('balance'));
    await waiting;
    expect(finished).toEqual(['balance', 'retried submission']);
  });
});
