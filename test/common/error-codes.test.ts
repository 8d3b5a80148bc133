import { describe, expect, it } from 'vitest';
import { DeflowError } from '../../src/common/deflow-error.js';
import { ERROR_EXIT_CODES, exitCodeFor, isErrorCode } from '../../src/common/error-codes.js';

describe('error codes: one table of code → exit code', () => {
  it('maps each family to the exit code the README documents', () => {
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

  it('gives 70 (a bug) for anything that is not a DeflowError', () => {
    expect(exitCodeFor(new TypeError('x is undefined'))).toBe(70);
    expect(exitCodeFor('a string')).toBe(70);
  });

  it('holds only E_ codes with documented exit codes', () => {
    for (const [code, exit] of Object.entries(ERROR_EXIT_CODES)) {
      expect(code).toMatch(/^E_[A-Z0-9_]+$/);
      expect([1, 2, 3, 4, 5, 130]).toContain(exit);
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
});
