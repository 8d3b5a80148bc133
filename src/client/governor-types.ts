import type { Clock } from '../common/index.js';
import type { PoolId } from '../service/index.js';
import type { RateLimitSnapshot } from './rate-limit-snapshot.js';

/*
 * What the client asks of a rate governor, and what a governor answers: the contract that
 * `RateGovernor` (rate-governor.ts), the engine's shared governors and the request
 * executor meet at.
 */

/** A request asking to go out. */
export interface AcquireRequest {
  /** The pool the endpoint spends (`endpoint.pool`); null for unthrottled endpoints. */
  readonly pool: PoolId | null;
  /** The model the body names; a `model`-source answer gives it its own bucket. */
  readonly model?: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly signal?: AbortSignal | undefined;
}

/** The right to send one request. Exactly one of `settle`/`abandon` must be called. */
export interface GovernorPermit {
  /** The bucket that holds the slot, or null for an unthrottled endpoint. */
  readonly bucket: string | null;
  settle(answer: { status: number; rateLimit: RateLimitSnapshot }): void;
  /** No answer arrived; `reachedService` false gives the slot back. */
  abandon(reachedService: boolean): void;
}

/** Events of `RateGovernor`. */
export interface GovernorEvents {
  /** A request waits for a window to refill (`window`), or a 429 closed one (`429`). `until` is clock ms. */
  throttled: [{ bucket: string; pool: PoolId; model?: string; until: number | null; reason: 'window' | '429' }];
  /** A bucket's limits became known or changed. */
  limitLearned: [{ bucket: string; pool: PoolId; model?: string; limit: number; windowSeconds: number; dailyLimit?: number }];
  /** A bucket's daily window is used up until `resetAt` (clock ms). */
  dailyExhausted: [{ bucket: string; pool: PoolId; model?: string; resetAt: number }];
}

/**
 * What the client needs of a rate governor. `RateGovernor` keeps its buckets in this
 * process; another implementation may keep them elsewhere (the engine's Redis-backed one
 * shares an account's buckets between processes and machines).
 */
export interface Governor {
  /** The clock the governor's times refer to. */
  readonly clock: Clock;
  /** Waits until `request` may go out and reserves its slot. */
  acquire(request: AcquireRequest): Promise<GovernorPermit>;
  /** The state of every bucket known (for verbose output, reports and the concurrency bound). */
  describe(): GovernorBucketView[];
  on<K extends keyof GovernorEvents>(event: K, listener: (...args: GovernorEvents[K]) => void): unknown;
  off<K extends keyof GovernorEvents>(event: K, listener: (...args: GovernorEvents[K]) => void): unknown;
}

/** One bucket as {@link Governor.describe} shows it. */
export interface GovernorBucketView {
  readonly bucket: string;
  readonly state: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly dailyRemaining?: number;
  /** Requests the bucket would admit now without waiting (GovernorBucket.room), when known. */
  readonly room?: number;
  /** Requests queued for the bucket, waiting for room. */
  readonly waiting?: number;
}
