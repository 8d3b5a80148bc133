import { MINUTE_WINDOW_S } from '../service/index.js';
import type { NetworkError } from './errors/network-error.js';
import type { RateLimitSnapshot } from './rate-limit-snapshot.js';

/**
 * What a request does on the service, which decides what may be resent:
 * `read` (GET), `quote` (price twins: they create nothing), `submit` (creates a job or a key;
 * the service has no idempotency key, so a resend can pay twice).
 */
export type RequestKind = 'read' | 'quote' | 'submit';

/** Options of the retry policy. */
export interface RetryOptions {
  /**
   * Resends after a 5xx or a network failure (reads, quotes, and submissions that provably
   * never reached the service). @default 4
   */
  readonly maxRetries: number;
  /** First backoff ceiling; attempt n waits a random time in [0, base·2^(n-1)] (full jitter). @default 500 */
  readonly baseDelayMs: number;
  /** Largest backoff ceiling. @default 30000 */
  readonly maxDelayMs: number;
  /** Consecutive minute-window 429s to wait out before giving up with RateLimitError. @default 20 */
  readonly maxRateLimitRetries: number;
  /**
   * Resend a submission answered 5xx. Off by default: the service has no idempotency key, and
   * a 500 after the job was created would run (and bill) it twice. Turn it on only when a
   * duplicate job is cheaper than a failed item. @default false
   */
  readonly retrySubmitOn5xx: boolean;
  /** Random source in [0, 1) for jitter (tests make it deterministic). @default Math.random */
  readonly random: () => number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRateLimitRetries: 20,
  retrySubmitOn5xx: false,
  random: Math.random,
};

/** What happened to one attempt. */
export type AttemptOutcome =
  | { readonly type: 'response'; readonly status: number; readonly rateLimit: RateLimitSnapshot }
  | { readonly type: 'network'; readonly error: NetworkError };

/** How many resends of each kind this request already made. */
export interface RetryCounters {
  readonly failures: number;
  readonly rateLimited: number;
}

export type RetryDecision =
  | { readonly retry: false }
  | { readonly retry: true; readonly delayMs: number; readonly counter: keyof RetryCounters; readonly reason: string };

const STOP: RetryDecision = { retry: false };

/**
 * The one retry rule book. A 429 on the minute window waits exactly `Retry-After` (no cap);
 * a daily 429 or an IP refusal never retries; 5xx and network failures back off with full
 * jitter, but a submission is resent only when it provably created nothing.
 */
export function decideRetry(
  outcome: AttemptOutcome,
  kind: RequestKind,
  counters: RetryCounters,
  options: RetryOptions,
  nowMs: number,
): RetryDecision {
  if (outcome.type === 'network') {
    const safe = kind !== 'submit' || !outcome.error.reachedService;
    if (!safe || counters.failures >= options.maxRetries) return STOP;
    return backoff(counters.failures, options, `network: ${outcome.error.networkCode ?? 'error'}`);
  }
  const { status, rateLimit } = outcome;
  if (status === 429) {
    if (rateLimit.type === 'daily' || rateLimit.type === 'ip-not-allowed') return STOP;
    if (counters.rateLimited >= options.maxRateLimitRetries) return STOP;
    return { retry: true, delayMs: rateLimitWaitMs(rateLimit, nowMs), counter: 'rateLimited', reason: `429 ${rateLimit.type ?? 'minute'}` };
  }
  if (status >= 500) {
    if (kind === 'submit' && !options.retrySubmitOn5xx) return STOP;
    if (counters.failures >= options.maxRetries) return STOP;
    return backoff(counters.failures, options, `${status}`);
  }
  return STOP;
}

/** `Retry-After` seconds exactly; without it, until `X-RateLimit-Reset`; without either, one minute. */
export function rateLimitWaitMs(rateLimit: RateLimitSnapshot, nowMs: number): number {
  if (rateLimit.retryAfterSeconds !== undefined) return rateLimit.retryAfterSeconds * 1000;
  if (rateLimit.resetEpochS !== undefined) return Math.max(0, rateLimit.resetEpochS * 1000 - nowMs);
  return MINUTE_WINDOW_S * 1000;
}

function backoff(done: number, options: RetryOptions, reason: string): RetryDecision {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** done);
  return { retry: true, delayMs: Math.floor(options.random() * ceiling), counter: 'failures', reason };
}
