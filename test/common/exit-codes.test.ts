import { describe, expect, it } from 'vitest';
import { DeflowError, exitCodeFor, isDeflowError } from '../../src/common/deflow-error.js';
import { isErrorCode } from '../../src/common/error-codes.js';
import {
  ERROR_EXIT_CODES,
  EXIT,
  exitCodeForQuote,
  exitCodeForRun,
  exitCodeForSignal,
  QUOTE_VERDICT_EXIT,
  RUN_STATUS_EXIT,
} from '../../src/common/exit-codes.js';
import * as library from '../../src/index.js';

/** The README's exit-code table, literally. */
const DOCUMENTED = [0, 1, 2, 3, 4, 5, 6, 70, 130, 143];

describe('exit codes: one module maps errors, run statuses and quote verdicts', () => {
  it('maps each error family to the exit code the README documents', () => {
    expect(exitCodeFor(new DeflowError('E_WORKFLOW_SCHEMA', 'x'))).toBe(2);
    expect(exitCodeFor(new DeflowError('E_USAGE_OPTION', 'x'))).toBe(2);
    expect(exitCodeFor(new DeflowError('E_CONFIG_SCHEMA', 'x'))).toBe(2);
    expect(exitCodeFor(new DeflowError('E_INPUT_QUOTE', 'x'))).toBe(2);
    expect(exitCodeFor(new DeflowError('E_API_AUTH', 'x'))).toBe(3);
    expect(exitCodeFor(new DeflowError('E_API_BALANCE', 'x'))).toBe(3);
    expect(exitCodeFor(new DeflowError('E_API_DAILY_LIMIT', 'x'))).toBe(5);
    expect(exitCodeFor(new DeflowError('E_INTERRUPTED', 'x'))).toBe(130);
    expect(exitCodeFor(new DeflowError('E_JOB_FAILED', 'x'))).toBe(1);
    expect(exitCodeFor(new DeflowError('E_NETWORK', 'x'))).toBe(1);
  });

  it('gives 70 (a bug in deflow) for E_INTERNAL and for anything that is not a DeflowError', () => {
    expect(exitCodeFor(new DeflowError('E_INTERNAL', 'x'))).toBe(70);
    expect(exitCodeFor(new TypeError('x is undefined'))).toBe(70);
    expect(exitCodeFor('a string')).toBe(70);
  });

  it('maps every run status to its documented exit code', () => {
    expect(RUN_STATUS_EXIT).toEqual({ done: 0, failed: 1, refused: 3, 'over-budget': 4, 'daily-limit': 5, 'left-out': 6, interrupted: 130 });
    expect(exitCodeForRun('daily-limit')).toBe(5);
  });

  it('maps every quote verdict: pass 0, over the cap / unpriced / over the balance 4, no prices 1', () => {
    expect(QUOTE_VERDICT_EXIT).toEqual({ within: 0, 'no-budget': 0, unavailable: 1, 'over-budget': 4, unpriced: 4, 'over-balance': 4 });
    expect(exitCodeForQuote('over-balance')).toBe(4);
  });

  it('ends a second SIGINT with 130 and a second SIGTERM with 143', () => {
    expect(exitCodeForSignal('SIGINT')).toBe(130);
    expect(exitCodeForSignal('SIGTERM')).toBe(143);
    expect(EXIT.terminated).toBe(143);
  });

  it('uses only documented exit codes, and E_ codes', () => {
    expect(Object.values(EXIT).sort((a, b) => a - b)).toEqual(DOCUMENTED);
    for (const [code, exit] of Object.entries(ERROR_EXIT_CODES)) {
      expect(code).toMatch(/^E_[A-Z0-9_]+$/);
      expect(DOCUMENTED).toContain(exit);
    }
    expect(isErrorCode('E_API_AUTH')).toBe(true);
    expect(isErrorCode('E_NOT_A_CODE')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('refuses a free string as a code at compile time', () => {
    // @ts-expect-error: a code must be an entry of ERROR_EXIT_CODES (typecheck fails if this compiles)
    const error = new DeflowError('E_NOT_A_CODE', 'x');
    expect(exitCodeFor(error)).toBe(70);
  });

  it('is exported from the library: ErrorCode, isDeflowError, EXIT and the mapping', () => {
    expect(library.EXIT).toBe(EXIT);
    expect(library.isDeflowError).toBe(isDeflowError);
    expect(library.exitCodeFor).toBe(exitCodeFor);
    const code: library.ErrorCode = 'E_JOB_TIMEOUT';
    expect(isErrorCode(code)).toBe(true);
  });
});

describe('isDeflowError(error, code): the typed guard', () => {
  it('is true only for a DeflowError with one of the codes', () => {
    const timeout = new DeflowError('E_JOB_TIMEOUT', 'x');
    expect(isDeflowError(timeout)).toBe(true);
    expect(isDeflowError(timeout, 'E_JOB_TIMEOUT')).toBe(true);
    expect(isDeflowError(timeout, 'E_API_NOT_FOUND', 'E_JOB_TIMEOUT')).toBe(true);
    expect(isDeflowError(timeout, 'E_API_NOT_FOUND')).toBe(false);
    // A look-alike with the same code is not one of ours.
    expect(isDeflowError(Object.assign(new Error('x'), { code: 'E_JOB_TIMEOUT' }), 'E_JOB_TIMEOUT')).toBe(false);
    expect(isDeflowError(null, 'E_JOB_TIMEOUT')).toBe(false);
  });

  it('narrows the code to the ones asked for', () => {
    const error: unknown = new DeflowError('E_JOB_TIMEOUT', 'x');
    if (isDeflowError(error, 'E_JOB_TIMEOUT', 'E_API_NOT_FOUND')) {
      const narrowed: 'E_JOB_TIMEOUT' | 'E_API_NOT_FOUND' = error.code;
      expect(narrowed).toBe('E_JOB_TIMEOUT');
    }
  });

  it('refuses a code that is not one at compile time', () => {
    // @ts-expect-error: only ErrorCode values may be asked for (typecheck fails if this compiles)
    expect(isDeflowError(new Error('x'), 'E_NOT_A_CODE')).toBe(false);
  });
});
