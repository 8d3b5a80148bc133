import { describe, expect, test } from 'vitest';
import { type BucketTicket, GovernorBucket } from '../../src/client/governor-bucket.js';
import type { RateLimitSnapshot } from '../../src/client/rate-limit-snapshot.js';

// The bucket is pure bookkeeping on explicit times, so these tests drive it directly; its
// behaviour against a real server is covered over HTTP in rate-governor.test.ts.

const W = 60_000;

function headers(remaining: number, resetMs: number, extra: Partial<RateLimitSnapshot> = {}): RateLimitSnapshot {
  return { limit: 3, remaining, resetEpochS: Math.ceil(resetMs / 1000), source: 'tier', windows: [{ limit: 3, windowSeconds: 60 }], ...extra };
}

function take(bucket: GovernorBucket, now: number): BucketTicket {
  const r = bucket.reserve(now);
  if (!r.ok) throw new Error(`expected a slot at ${now}, got ${r.reason}`);
  return r.ticket;
}

describe('GovernorBucket', () => {
  test('lets one request learn the limits while the others wait', () => {
    const bucket = new GovernorBucket('pool');
    const first = take(bucket, 0);
    expect(first.learning).toBe(true);
    expect(bucket.reserve(1)).toMatchObject({ ok: false, reason: 'learning', until: null });
    const news = bucket.settle(first, { status: 200, rateLimit: headers(2, 60_000), receivedAt: 10 });
    expect(news.learned).toBe(true);
    expect(bucket.limit).toBe(3);
    expect(bucket.windowMs).toBe(W);
  });

  test('sends no request into an exhausted window and reopens it at the earlier of Reset and first answer + W', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, 500 + W), receivedAt: 400 });
    const a = take(bucket, 500);
    const b = take(bucket, 500);
    expect(bucket.reserve(600)).toMatchObject({ ok: false, reason: 'window' });
    bucket.settle(a, { status: 200, rateLimit: headers(1, 500 + W), receivedAt: 700 });
    bucket.settle(b, { status: 200, rateLimit: headers(0, 500 + W), receivedAt: 700 });
    // Reset rounds up to 61 s; the first answer arrived at 400 ms, so the window ends by 60.4 s.
    expect(bucket.reserve(60_399)).toMatchObject({ ok: false, reason: 'window', until: 60_400 });
    expect(bucket.reserve(60_400).ok).toBe(true);
  });

  test('opens each new window with one request and lets the rest follow its answer', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, W), receivedAt: 0 });
    const first = take(bucket, 1);
    const last = take(bucket, 1);
    bucket.settle(first, { status: 200, rateLimit: headers(1, W), receivedAt: 2 });
    bucket.settle(last, { status: 200, rateLimit: headers(0, W), receivedAt: 2 });
    const opener = take(bucket, W);
    expect(opener.opener).toBe(true);
    expect(bucket.reserve(W)).toMatchObject({ ok: false, reason: 'learning' });
    bucket.settle(opener, { status: 200, rateLimit: headers(2, 2 * W + 5), receivedAt: W + 5 });
    expect(bucket.reserve(W + 6).ok).toBe(true);
  });

  test('carries a request sent just before the window ended into the next one until its answer says where it counted', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, W), receivedAt: 0 });
    bucket.settle(take(bucket, 1), { status: 200, rateLimit: headers(1, W), receivedAt: 2 });
    const late = take(bucket, 59_999);
    // The window ends while `late` is out: its slot may belong to the next window, so only
    // two of the next window's three slots are free.
    expect(bucket.reserve(W + 1).ok).toBe(true);
    expect(bucket.reserve(W + 1).ok).toBe(true);
    expect(bucket.reserve(W + 1)).toMatchObject({ ok: false, reason: 'window' });
    // It counted in the old window: the slot comes back.
    bucket.settle(late, { status: 200, rateLimit: headers(0, W), receivedAt: W + 2 });
    expect(bucket.reserve(W + 3).ok).toBe(true);
  });

  test('adopts a newer server window than its own mirror', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, W), receivedAt: 0 });
    const a = take(bucket, 1);
    // Another client of the account opened a new window and spent two of it.
    bucket.settle(a, { status: 200, rateLimit: headers(0, 2 * W), receivedAt: 10 });
    expect(bucket.reserve(20)).toMatchObject({ ok: false, reason: 'window' });
  });

  test('on a 429 waits until Retry-After has passed', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, W), receivedAt: 0 });
    const t = take(bucket, 1);
    const news = bucket.settle(t, { status: 429, rateLimit: headers(0, W, { type: 'minute', retryAfterSeconds: 60 }), receivedAt: 5 });
    expect(news.throttledUntil).toBe(60_005);
    expect(bucket.reserve(60_004)).toMatchObject({ ok: false, reason: 'window' });
  });

  test('refuses once the daily window is used up and nothing is in flight', () => {
    const bucket = new GovernorBucket('pool');
    const day = { dailyLimit: 2, dailyResetEpochS: 86_400 };
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: headers(2, W, { ...day, dailyRemaining: 1 }), receivedAt: 0 });
    const t = take(bucket, 1);
    expect(bucket.reserve(2)).toMatchObject({ ok: false, reason: 'daily-pending' });
    bucket.settle(t, { status: 200, rateLimit: headers(1, W, { ...day, dailyRemaining: 0 }), receivedAt: 3 });
    expect(bucket.reserve(4)).toMatchObject({ ok: false, reason: 'daily-exhausted', until: 86_400_000 });
    expect(bucket.reserve(86_400_000).ok).toBe(true);
  });

  test('treats a pool that answers without headers as unthrottled', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: { windows: [] }, receivedAt: 0 });
    expect(bucket.state).toBe('unthrottled');
    for (let i = 0; i < 100; i++) expect(bucket.reserve(1).ok).toBe(true);
  });

  test('gives the learning turn to the next request when the first got no answer', () => {
    const bucket = new GovernorBucket('pool');
    bucket.abandon(take(bucket, 0), false);
    expect(take(bucket, 1).learning).toBe(true);
  });
});

describe('GovernorBucket on a pool that starts to be limited', () => {
  test('mirrors the window once headers appear', () => {
    const bucket = new GovernorBucket('pool');
    bucket.settle(take(bucket, 0), { status: 200, rateLimit: { windows: [] }, receivedAt: 0 });
    const a = take(bucket, 1);
    const b = take(bucket, 1);
    expect(bucket.settle(a, { status: 200, rateLimit: headers(1, W), receivedAt: 2 }).learned).toBe(true);
    bucket.settle(b, { status: 200, rateLimit: headers(0, W), receivedAt: 2 });
    expect(bucket.reserve(3)).toMatchObject({ ok: false, reason: 'window' });
  });
});
