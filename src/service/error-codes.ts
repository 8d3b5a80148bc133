/**
 * The error `code` values the service publishes (docs/deapi-contract.md#errors), by HTTP status. The list is open:
 * a client keeps an unknown value as the status alone.
 */
export const ERROR_CODES = {
  missing_key: 401,
  invalid_key: 401,
  key_expired: 401,
  key_revoked: 401,
  insufficient_permissions: 403,
  ip_not_allowed: 403,
  active_key_limit_reached: 422,
  insufficient_balance: 422,
  key_limit_exceeded: 402,
  rate_limited: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is one the spec publishes. */
export function isKnownErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** Job `error_code` values the public docs publish (docs/deapi-contract.md#jobs). */
export const JOB_ERROR_CODES = ['WORKER_TIMEOUT', 'WORKER_ERROR', 'PROCESSING_ERROR'] as const;

/**
 * A failed job's `error_code` as the service sent it: one the docs publish, or any other string
 * (the list is open, so it is kept as sent). Not one of deflow's own `E_…` codes.
 */
export type JobErrorCode = (typeof JOB_ERROR_CODES)[number] | (string & Record<never, never>);

/** Job `error_reason` values the public docs publish; the list is open (unknown → PROCESSING_FAILED). */
export const JOB_ERROR_REASONS = [
  'SOURCE_PRIVATE',
  'SOURCE_RESTRICTED',
  'SOURCE_UNPROCESSABLE',
  'SOURCE_DOWNLOAD_FAILED',
  'INPUT_TOO_LARGE',
  'TIMEOUT',
  'CAPACITY_UNAVAILABLE',
  'PROCESSING_FAILED',
] as const;

/** Job `status` values: `done` and `error` are terminal (the full list: docs/deapi-contract.md#jobs). */
export const JOB_STATUSES = ['pending', 'processing', 'done', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['done', 'error'];
