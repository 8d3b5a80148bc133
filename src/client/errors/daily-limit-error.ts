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

  /**
   * A governor's refusal of a request it did not send: the daily window of `bucket` is used up
   * until `resetAt` (clock ms; null or infinite when unknown), `now` being the clock's time.
   */
  static notSent(bucket: string, request: { readonly method: string; readonly path: string }, resetAt: number | null, now: number): DailyLimitError {
    const known = resetAt !== null && Number.isFinite(resetAt);
    const when = known ? ` until ${new Date(resetAt).toISOString()}` : '';
    return new DailyLimitError({
      status: 429,
      serviceMessage: `not sent: the daily limit of the "${bucket}" rate-limit bucket is used up${when}`,
      method: request.method,
      path: request.path,
      retryAfterSeconds: known ? Math.max(0, Math.ceil((resetAt - now) / 1000)) : undefined,
      resetAt: known ? resetAt : undefined,
    });
  }
}
