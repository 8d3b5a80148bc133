import type { Redactor } from '../common/index.js';
import { ApiError, type ApiErrorInit } from './errors/api-error.js';
import { AuthError } from './errors/auth-error.js';
import { DailyLimitError } from './errors/daily-limit-error.js';
import { InsufficientBalanceError } from './errors/insufficient-balance-error.js';
import { KeyLimitError } from './errors/key-limit-error.js';
import { NotFoundError } from './errors/not-found-error.js';
import { PermissionError } from './errors/permission-error.js';
import { RateLimitError } from './errors/rate-limit-error.js';
import { ServerError } from './errors/server-error.js';
import { ValidationError } from './errors/validation-error.js';
import type { RateLimitSnapshot } from './rate-limit-snapshot.js';
import { readFieldErrors, readMessage, readServiceCode } from './tolerant-read.js';

/** An error answer as the transport read it. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly method: string;
  readonly path: string;
  readonly rateLimit: RateLimitSnapshot;
}

/**
 * The typed error for a non-2xx answer. Matching is on status and the published `code`
 * (docs/deapi-contract.md#errors), never on message text; every string taken from the body is redacted.
 */
export function createApiError(answer: ErrorAnswer, redact: Redactor, nowMs: number): ApiError {
  const body = answer.body;
  const errors = isObject(body) ? readFieldErrors(body.errors) : {};
  const init: ApiErrorInit = {
    status: answer.status,
    serviceCode: readServiceCode(body),
    serviceMessage: redact(readMessage(body)).slice(0, 500),
    errors: redactErrors(errors, redact),
    method: answer.method,
    path: answer.path,
    rateLimit: answer.rateLimit,
  };
  const { status } = answer;
  if (status === 401) return new AuthError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 402) return new KeyLimitError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 422) {
    return init.serviceCode === 'insufficient_balance' || 'balance' in errors ? new InsufficientBalanceError(init) : new ValidationError(init);
  }
  if (status === 429) return createRateLimitError(init, answer.rateLimit, nowMs);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init, 'E_API_REQUEST');
}

function createRateLimitError(init: ApiErrorInit, rateLimit: RateLimitSnapshot, nowMs: number): ApiError {
  const retryAfterSeconds = rateLimit.retryAfterSeconds;
  if (rateLimit.type === 'daily') {
    const resetAt =
      rateLimit.dailyResetEpochS !== undefined
        ? rateLimit.dailyResetEpochS * 1000
        : retryAfterSeconds !== undefined
          ? nowMs + retryAfterSeconds * 1000
          : undefined;
    return new DailyLimitError({ ...init, retryAfterSeconds, resetAt });
  }
  // A refused address keeps being refused however long one waits: it is a permission problem.
  if (rateLimit.type === 'ip-not-allowed') return new PermissionError(init);
  return new RateLimitError({ ...init, limitType: rateLimit.type, retryAfterSeconds });
}

function redactErrors(errors: Record<string, string[]>, redact: Redactor): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) out[field] = messages.map(redact);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
