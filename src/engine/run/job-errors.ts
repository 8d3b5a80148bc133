/**
 * What an error means for a node and for the run. The rules (docs/running.md#the-client-and-rate-limits): a refusal
 * of the account (401, 403, 402, `insufficient_balance`) or a used-up daily limit stops all
 * new submissions, since every next one would be refused too; other refusals fail the item;
 * a submission that may have reached the service without an answer is `unknown`, never sent
 * again silently.
 */
import { ApiError } from '../../client/index.js';
import { AuthError } from '../../client/index.js';
import { DailyLimitError } from '../../client/index.js';
import { InsufficientBalanceError } from '../../client/index.js';
import { KeyLimitError } from '../../client/index.js';
import { NetworkError } from '../../client/index.js';
import { PermissionError } from '../../client/index.js';
import { ServerError } from '../../client/index.js';
import type { JobFailure } from '../../client/index.js';
import { isDeflowError, type Redactor } from '../../common/index.js';
import type { EventError } from '../contracts/events.js';

/** Why the run stops submitting. */
export type StopReason = 'interrupted' | 'over-budget' | 'daily-limit' | 'refused' | 'fatal';

/** What to do with a node whose submission threw. */
export type SubmitVerdict =
  /** Nothing was created and the whole run must stop submitting; the node waits for the next run. */
  | { readonly kind: 'stop'; readonly reason: StopReason }
  /** Nothing usable was created: the item failed. */
  | { readonly kind: 'failed'; readonly retryable: boolean }
  /** A job may have been created: the item is unknown. */
  | { readonly kind: 'unknown'; readonly reason: string };

/** Classifies an error thrown by a submission POST. */
export function judgeSubmitError(error: unknown): SubmitVerdict {
  if (error instanceof DailyLimitError) return { kind: 'stop', reason: 'daily-limit' };
  if (isAccountRefusal(error)) return { kind: 'stop', reason: 'refused' };
  if (error instanceof ServerError) return { kind: 'unknown', reason: `the service answered ${error.status}; the job may have been created` };
  if (error instanceof NetworkError) {
    return error.reachedService
      ? { kind: 'unknown', reason: `no answer to the submission (${error.networkCode ?? 'network error'}); the job may have been created` }
      : { kind: 'failed', retryable: true };
  }
  if (error instanceof ApiError) return { kind: 'failed', retryable: error.status === 429 };
  return { kind: 'failed', retryable: false };
}

/** A refusal of the account or key that applies to every request, not just this one. */
export function isAccountRefusal(error: unknown): boolean {
  return error instanceof AuthError || error instanceof PermissionError || error instanceof InsufficientBalanceError || error instanceof KeyLimitError;
}

/** Errors a poll may recover from by asking again later. */
export function isTransientPollError(error: unknown): boolean {
  return error instanceof ServerError || error instanceof NetworkError || (error instanceof ApiError && error.status === 429 && !(error instanceof DailyLimitError));
}

/** An error as events and reports show it (never a secret: client messages are already redacted). */
export function toEventError(error: unknown, redact: Redactor): EventError {
  const code = isDeflowError(error) ? error.code : 'E_INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  return { code, message: redact(message.split('\n')[0] ?? '') };
}

/** A job that ended with `status: error`. */
export function jobFailureError(requestId: string, failure: JobFailure | null): EventError {
  const what = failure?.message ?? failure?.reason ?? 'no reason given';
  return {
    code: 'E_JOB_FAILED',
    message: `job ${requestId} failed: ${what}`,
    ...(failure?.code ? { jobErrorCode: failure.code } : {}),
    ...(failure?.reason ? { reason: failure.reason } : {}),
    ...(failure?.retryable !== null && failure?.retryable !== undefined ? { retryable: failure.retryable } : {}),
  };
}

/** Why a paid job's result is not saved, with its job named (the re-run fetches it again). */
export function unsavedError(requestId: string, error: unknown, redact: Redactor): EventError {
  const event = toEventError(error, redact);
  return { ...event, message: `paid, not saved (job ${requestId}; a re-run fetches it again, never pays again): ${event.message}` };
}

/** A paid job the service no longer knows: its result is lost. */
export function lostError(requestId: string, cause: EventError): EventError {
  return { code: 'E_RESULT_LOST', message: `job ${requestId} was paid for, but its result can no longer be fetched (${cause.code}: ${cause.message}); it is not submitted again` };
}
