import type { ErrorCode } from '../../common/index.js';
import { ApiError, type ApiErrorInit } from './api-error.js';

/** What a rate-limit refusal adds to an API error. */
export interface RateLimitInit extends ApiErrorInit {
  /** `X-RateLimit-Type` (`minute`, `daily`, `key-creation`, `ip-not-allowed`), when sent. */
  readonly limitType?: string | undefined;
  /** `Retry-After` in seconds, when sent. */
  readonly retryAfterSeconds?: number | undefined;
}

/**
 * 429 that deflow gave up waiting on (more consecutive 429s than `maxRateLimitRetries`).
 * The retry policy normally waits `Retry-After` and resends, so callers rarely see this.
 */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  readonly limitType: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: RateLimitInit, options: { cause?: unknown } = {}, code: ErrorCode = 'E_API_RATE_LIMITED') {
    super(init, code, options);
    this.limitType = init.limitType;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
