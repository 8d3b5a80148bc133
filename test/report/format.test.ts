import { describe, expect, it } from 'vitest';
import { formatCost } from '../../src/report/format-cost.js';
import { formatDuration } from '../../src/report/format-duration.js';

describe('formatCost', () => {
  it('shows small amounts with 4 decimals and large ones with 2', () => {
    expect(formatCost(0.0123)).toBe('$0.0123');
    expect(formatCost(0)).toBe('$0.0000');
    expect(formatCost(9.99994)).toBe('$9.9999');
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatCost(-0.5)).toBe('-$0.5000');
    expect(formatCost(null)).toBe('—');
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
