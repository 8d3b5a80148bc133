import { describe, expect, it } from 'vitest';
import { coerceArray, coerceBoolean, coerceInteger, coerceLoras, coerceNumber, coerceTextOrTexts } from '../../src/emulator/requests/coerce.js';
import { attributeName, summariseErrors } from '../../src/emulator/requests/error-messages.js';

describe('Laravel-lenient coercion', () => {
  it.each([
    [true, true], [false, false], [1, true], [0, false], ['true', true], ['false', false],
    ['1', true], ['0', false], ['on', true], ['off', false], ['TRUE', true],
  ])('reads %j as the boolean %j', (raw, expected) => {
    expect(coerceBoolean(raw)).toEqual({ ok: true, value: expected });
  });

  it.each([['yes'], [2], [''], [null], ['truthy']])('refuses %j as a boolean', (raw) => {
    expect(coerceBoolean(raw).ok).toBe(false);
  });

  it('reads numeric strings as numbers and refuses other text', () => {
    expect(coerceNumber('0.5')).toEqual({ ok: true, value: 0.5 });
    expect(coerceNumber(' 3 ')).toEqual({ ok: true, value: 3 });
    expect(coerceNumber('1e3')).toEqual({ ok: true, value: 1000 });
    expect(coerceNumber('abc').ok).toBe(false);
    expect(coerceNumber(Number.NaN).ok).toBe(false);
  });

  it('accepts only whole numbers as integers', () => {
    expect(coerceInteger('512')).toEqual({ ok: true, value: 512 });
    expect(coerceInteger('-1')).toEqual({ ok: true, value: -1 });
    expect(coerceInteger(4)).toEqual({ ok: true, value: 4 });
    expect(coerceInteger('4294967295')).toEqual({ ok: true, value: 4_294_967_295 });
    expect(coerceInteger('4.5').ok).toBe(false);
    expect(coerceInteger(4.5).ok).toBe(false);
    expect(coerceInteger('4.0').ok).toBe(false);
  });

  it('reads arrays as JSON arrays or JSON strings', () => {
    expect(coerceArray(['a'])).toEqual({ ok: true, value: ['a'] });
    expect(coerceArray('["a","b"]')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(coerceArray('a').ok).toBe(false);
  });

  it('reads loras from a JSON string with numeric-string weights', () => {
    expect(coerceLoras('[{"name":"style","weight":"0.8"}]')).toEqual({ ok: true, value: [{ name: 'style', weight: 0.8 }] });
    expect(coerceLoras([{ name: 'x', weight: -1 }]).ok).toBe(false);
  });

  it('reads embedding input as a string, a list or a JSON-encoded list', () => {
    expect(coerceTextOrTexts('hello')).toEqual({ ok: true, value: 'hello' });
    expect(coerceTextOrTexts(['a', 'b'])).toEqual({ ok: true, value: ['a', 'b'] });
    expect(coerceTextOrTexts('["a","b"]')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(coerceTextOrTexts([1]).ok).toBe(false);
  });
});

describe('error summary', () => {
  it('prints attribute names with spaces', () => {
    expect(attributeName('include_ts')).toBe('include ts');
  });

  it('is the single message when there is one', () => {
    expect(summariseErrors({ width: ['The width field must be at least 512.'] })).toBe('The width field must be at least 512.');
  });

  it('counts one more message as "error"', () => {
    expect(summariseErrors({ width: ['A.'], height: ['B.'] })).toBe('A. (and 1 more error)');
  });

  it('counts every other message, across and within fields', () => {
    expect(summariseErrors({ width: ['The width field must be at least 512.', 'X.'], height: ['Y.'] })).toBe(
      'The width field must be at least 512. (and 2 more errors)',
    );
  });
});
