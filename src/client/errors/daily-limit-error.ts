import type { ApiErrorInit } from './api-error.js';
import { RateLimitError } from './rate-limit-error.js';

/**
 * A pool's daily window is used up (429 `X-RateLimit-Type: daily`, or the governor knows the
 * daily remaining is 0). New submissions stop; the caller may wait until `resetAt` and resume.
 */
export class DailyLimitError extends RateLimitError {
  override name = 'DailyLimitError';
  /** Epoch milliseconds (on the client's clock) when the daily window refills, when known. */
  readonly resetAt: number | undefined;

  constructor(init: ApiErrorInit & { retryAfterSeconds?: number | undefined; resetAt?: number | undefined }, options: { cause?: unknown } = {}) {
    super({ ...init, limitType: 'daily' }, options, 'E_API_DAILY_LIMIT');
    this.resetAt = init.resetAt;
  }
}
