/**
 * The split of a shared bucket's room between the waiters of several processes (the Redis
 * governor applies it inside each bucket write): oldest first, ties by owner id, and claims
 * no process renewed for two windows left out.
 */
import { describe, expect, test } from 'vitest';
import { GovernorBucket } from '../../../src/client/index.js';
import { claimOf, fairShare } from '../../../src/engine/queue/fair-share.js';

const WINDOW_MS = 60_000;

/** A bucket whose limit is known and whose current window (ending at `end`) has `room` slots left of `limit`. */
function bucketWithRoom(limit: number, room: number, end = WINDOW_MS): GovernorBucket {
  return GovernorBucket.fromState('audio/speech', {
    state: 'known',
    limit,
    windowMs: WINDOW_MS,
    daily: null,
    epoch: 1,
    used: limit - room,
    carried: 0,
    inFlight: 0,
    windowEnd: end,
    serverResetMs: end,
    previousResetMs: end - WINDOW_MS,
    blockedUntil: 0,
    openerEpoch: null,
  });
}

describe('fair share of a shared bucket', () => {
  test('with room for everyone, every waiter of this process gets a slot', () => {
    const share = fairShare(bucketWithRoom(60, 60), 1000, [100, 200], { other: claimOf([50, 60, 70], 900)! }, 'me');
    expect(share).toEqual({ share: 2, refusal: null });
  });

  test('the room goes to the oldest waiters of all processes; this process gets its part, and the window end to wait for', () => {
    // Room 4: the other's waiters at 50 and 70 ms, then mine at 100 and 150 (not mine at 300, nor the other's at 400).
    const share = fairShare(bucketWithRoom(60, 4), 1000, [100, 150, 300], { other: claimOf([50, 70, 400], 900)! }, 'me');
    expect(share).toEqual({ share: 2, refusal: { reason: 'window', until: WINDOW_MS } });
  });

  test('waiters of the same tenth of a second go by owner id, so that every process computes the same split', () => {
    expect(fairShare(bucketWithRoom(60, 1), 1000, [120], { b: claimOf([110], 900)! }, 'a').share).toBe(1);
    expect(fairShare(bucketWithRoom(60, 1), 1000, [110], { a: claimOf([120], 900)! }, 'b').share).toBe(0);
  });

  test('a claim not renewed for two windows (its process stalled) takes nothing', () => {
    const now = 3 * WINDOW_MS;
    const stale = { other: claimOf([10, 20, 30], now - 2 * WINDOW_MS - 1)! };
    const current = { other: claimOf([10, 20, 30], now - 2 * WINDOW_MS + 1)! };
    const bucket = (): GovernorBucket => bucketWithRoom(60, 3, now + WINDOW_MS / 2);
    expect(fairShare(bucket(), now, [500, 600], stale, 'me').share).toBe(2);
    expect(fairShare(bucket(), now, [500, 600], current, 'me').share).toBe(0);
  });

  test('a claim stores one pair per tenth of a second of waiters', () => {
    expect(claimOf([1000, 1010, 1099, 1100, 2500], 7)).toEqual({ at: 7, w: [10, 3, 11, 1, 25, 1] });
    expect(claimOf([], 7)).toBeNull();
  });
});
