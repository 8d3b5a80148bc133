import { describe, expect, it } from 'vitest';
import { createPalette, shouldUseColor } from '../../src/report/terminal/color.js';

describe('shouldUseColor', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: '' }, false, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, true, false],
    [{ TERM: 'dumb' }, true, false],
    [{ TERM: 'dumb', FORCE_COLOR: '1' }, true, true],
  ])('env %j, tty %s → %s', (env, isTTY, expected) => {
    expect(shouldUseColor({ env, isTTY })).toBe(expected);
  });

  it('lets --color/--no-color win over the environment', () => {
    expect(shouldUseColor({ env: { NO_COLOR: '1' }, isTTY: false, override: true })).toBe(true);
    expect(shouldUseColor({ env: { FORCE_COLOR: '1' }, isTTY: true, override: false })).toBe(false);
  });
});

describe('createPalette', () => {
  it('wraps text in SGR codes only when enabled', () => {
    expect(createPalette(true).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(createPalette(false).red('x')).toBe('x');
  });
});
