import type { ErrorCode } from './error-codes.js';
import { ERROR_EXIT_CODES, EXIT, type ExitCode } from './exit-codes.js';

/**
 * The base of every error deflow throws on purpose. Callers branch on `code` (stable,
 * `E_…`), never on the message. `details` carries structured context (a file position,
 * a field, a request's method and path) for reports; it never holds a secret.
 */
export class DeflowError extends Error {
  override name = 'DeflowError';
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/**
 * True for any error deflow threw on purpose (safe to print as one line); with codes, true only
 * for one carrying one of them, and the type narrows to it: `isDeflowError(error, 'E_JOB_TIMEOUT')`.
 * The only way src compares an error's code (never a cast to `{ code?: string }`).
 */
export function isDeflowError(error: unknown): error is DeflowError;
export function isDeflowError<C extends ErrorCode>(error: unknown, ...codes: readonly [C, ...C[]]): error is DeflowError & { readonly code: C };
export function isDeflowError(error: unknown, ...codes: readonly ErrorCode[]): boolean {
  return error instanceof DeflowError && (codes.length === 0 || codes.includes(error.code));
}

/** The exit code for an error a command threw: its code's entry, or 70 for anything unexpected. */
export function exitCodeFor(error: unknown): ExitCode {
  return error instanceof DeflowError && Object.hasOwn(ERROR_EXIT_CODES, error.code) ? ERROR_EXIT_CODES[error.code] : EXIT.internal;
}
