import { ERROR_EXIT_CODES } from './exit-codes.js';

/**
 * A stable error code: an entry of the error table ({@link ERROR_EXIT_CODES} in exit-codes.ts,
 * which also gives its exit code). The compiler refuses any other string.
 */
export type ErrorCode = keyof typeof ERROR_EXIT_CODES;

/** True for a string that is one of deflow's error codes (e.g. read back from a journal). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_EXIT_CODES, value);
}

/** A code read back from a file another version may have written: kept when known, else `E_INTERNAL`. */
export function asErrorCode(value: unknown): ErrorCode {
  return isErrorCode(value) ? value : 'E_INTERNAL';
}
