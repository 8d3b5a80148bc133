import { describe, expect, it } from 'vitest';
import { formatCost, formatTotal } from '../../src/report/format-cost.js';
import { formatDuration } from '../../src/report/format-duration.js';

describe('formatCost', () => {
  it('keeps the digits that matter: cents from $1, four decimals from 1¢, three significant digits below', () => {
    expect(formatCost(12.4)).toBe('$12.40');
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatCost(1)).toBe('$1.00');
    expect(formatCost(0.0811)).toBe('$0.0811');
    expect(formatCost(0.4712)).toBe('$0.4712');
    expect(formatCost(0.000308)).toBe('$0.000308');
    expect(formatCost(0.0041)).toBe('$0.00410');
    expect(formatCost(0.000001)).toBe('$0.000001');
    expect(formatCost(0.00000049)).toBe('$0.00');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.00030000000000000003)).toBe('$0.000300');
    expect(formatCost(-0.5)).toBe('-$0.5000');
    expect(formatCost(null)).toBe('—');
  });

  it('prints a total as its point and high end, and a lower bound when items are unpriced', () => {
    expect(formatTotal({ point: 0.0289, high: 0.0289, unknown_items: 0 })).toBe('$0.0289');
    expect(formatTotal({ point: 0.0289, high: 0.0369, unknown_items: 0 })).toBe('$0.0289 (up to $0.0369)');
    expect(formatTotal({ point: 0.0041, high: 0.0041, unknown_items: 3 })).toBe('at least $0.00410 (3 items unpriced)');
    expect(formatTotal({ point: 0.0289, high: 0.0369, unknown_items: 1 })).toBe('at least $0.0289 (1 item unpriced; the priced ones up to $0.0369)');
  });
});

describe('formatDuration', () => {
  it('picks a unit that reads well', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(12_340)).toBe('12.3s');
    expect(formatDuration(59_960)).toBe('1m 00s');
    expect(formatDuration(245_000)).toBe('4m 05s');
    expect(formatDuration(7_380_000)).toBe('2h 03m');
    expect(formatDuration(null)).toBe('—');
  });
});
