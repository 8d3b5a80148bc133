import { describe, expect, it } from 'vitest';
import { addMicros, formatUsd, roundUsd, subtractMicros, sumUsd, toMicros, toMicrosDown, toMicrosUp, toUsd, UsdTally } from '../../src/common/money.js';

describe('money: USD kept in whole micro-dollars', () => {
  it('converts USD to micro-dollars to the nearest one, and back', () => {
    expect(toMicros(0.000308)).toBe(308);
    expect(toMicros(0.1 + 0.2)).toBe(300_000);
    expect(toMicros(12.4)).toBe(12_400_000);
    expect(toUsd(toMicros(0.0000005))).toBe(0.000001);
    expect(toUsd(308)).toBe(0.000308);
  });

  it('rounds a hold up to the next micro-dollar, but not a float a hair above a whole one', () => {
    expect(toMicrosUp(0.0000001)).toBe(1);
    expect(toMicrosUp(0.0030011)).toBe(3002);
    expect(toMicrosUp(0.1 + 0.2)).toBe(300_000);
  });

  it('rounds a cap down to a whole micro-dollar, but not a float a hair below a whole one', () => {
    expect(toMicrosDown(0.0000015)).toBe(1);
    expect(toMicrosDown(0.3 - 1e-17)).toBe(300_000);
    expect(toMicrosDown(0.7 * 3)).toBe(2_100_000);
  });

  it('adds ten thousand prices without drift', () => {
    const prices = Array.from({ length: 10_000 }, () => 0.000308);
    let float = 0;
    for (const p of prices) float += p;
    expect(float).not.toBe(3.08);
    expect(sumUsd(prices)).toBe(3.08);
    const tally = new UsdTally();
    for (const p of prices) tally.add(p);
    expect(tally.usd).toBe(3.08);
    expect(tally.micros).toBe(3_080_000);
  });

  it('adds and subtracts micro-dollars, never below zero', () => {
    expect(addMicros(toMicros(0.1), toMicros(0.2), toMicros(0.3))).toBe(600_000);
    expect(subtractMicros(toMicros(0.1), toMicros(0.3))).toBe(0);
    expect(subtractMicros(toMicros(0.3), toMicros(0.1))).toBe(200_000);
  });

  it('rounds to the micro-dollar, or to another number of decimals', () => {
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(0.12345649)).toBe(0.123456);
    expect(roundUsd(0.0000000123456, 9)).toBe(0.000000012);
  });

  it('states an amount to the micro-dollar without trailing zeros', () => {
    expect(formatUsd(0.1 + 0.2)).toBe('$0.3');
    expect(formatUsd(0.0003084)).toBe('$0.000308');
    expect(formatUsd(5)).toBe('$5');
  });
});
