import { describe, expect, test } from 'vitest';
import { readRateLimitSnapshot } from '../../src/client/rate-limit-snapshot.js';
import { decideRetry, DEFAULT_RETRY_OPTIONS } from '../../src/client/retry-policy.js';

describe('rate-limit headers', () => {
  test('reads every header of a daily 429', () => {
    const snapshot = readRateLimitSnapshot({
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1700000060',
      'x-ratelimit-daily-limit': '1000',
      'x-ratelimit-daily-remaining': '0',
      'x-ratelimit-daily-reset': '1700086400',
      'x-ratelimit-source': 'Model',
      'x-ratelimit-policy': '1000;w=86400, 60;w=60',
      'x-ratelimit-type': 'daily',
      'retry-after': '86340',
    });
    expect(snapshot).toEqual({
      limit: 60,
      remaining: 0,
      resetEpochS: 1_700_000_060,
      dailyLimit: 1000,
      dailyRemaining: 0,
      dailyResetEpochS: 1_700_086_400,
      source: 'model',
      windows: [
        { limit: 60, windowSeconds: 60 },
        { limit: 1000, windowSeconds: 86_400 },
      ],
      type: 'daily',
      retryAfterSeconds: 86_340,
    });
  });

  test('an unthrottled answer has no rate-limit information', () => {
    expect(readRateLimitSnapshot({ 'content-type': 'application/json' })).toEqual({ windows: [] });
  });
});

describe('retry rule book', () => {
  const options = { ...DEFAULT_RETRY_OPTIONS, random: () => 1 };
  const none = { failures: 0, rateLimited: 0 };
  const minute429 = { type: 'response' as const, status: 429, rateLimit: { windows: [], type: 'minute', retryAfterSeconds: 37 } };

  test('waits exactly Retry-After on a minute 429, however long, for every kind of request', () => {
    for (const kind of ['read', 'quote', 'submit'] as const) {
      expect(decideRetry(minute429, kind, none, options, 0)).toMatchObject({ retry: true, delayMs: 37_000, counter: 'rateLimited' });
    }
    const long = { ...minute429, rateLimit: { windows: [], type: 'key-creation', retryAfterSeconds: 3600 } };
    expect(decideRetry(long, 'submit', none, options, 0)).toMatchObject({ retry: true, delayMs: 3_600_000 });
  });

  test('backs off exponentially with full jitter, capped', () => {
    const fail = { type: 'response' as const, status: 503, rateLimit: { windows: [] } };
    const delays = [0, 1, 2, 3].map((failures) => decideRetry(fail, 'read', { failures, rateLimited: 0 }, options, 0));
    expect(delays.map((d) => (d.retry ? d.delayMs : -1))).toEqual([500, 1000, 2000, 4000]);
    expect(decideRetry(fail, 'read', { failures: 4, rateLimited: 0 }, options, 0)).toEqual({ retry: false });
    const capped = decideRetry(fail, 'read', { failures: 3, rateLimited: 0 }, { ...options, maxRetries: 20, maxDelayMs: 1500 }, 0);
    expect(capped).toMatchObject({ delayMs: 1500 });
  });

  test('never resends on 4xx other than 429', () => {
    for (const status of [400, 401, 402, 403, 404, 422]) {
      expect(decideRetry({ type: 'response', status, rateLimit: { windows: [] } }, 'read', none, options, 0)).toEqual({ retry: false });
    }
  });
});
