import { describe, expect, it } from 'vitest';
import { CI_DRAIN_MS, DEADLINE_MARGIN_MS, drainNotice, parseDrain } from '../../src/cli/drain.js';

describe('--drain', () => {
  it('reads a duration, alone means until the jobs are done, and without it CI waits 10 minutes and elsewhere 15 s', () => {
    expect(parseDrain('90s', {})).toBe(90_000);
    expect(parseDrain('10m', {})).toBe(600_000);
    expect(parseDrain(true, {})).toBe(Number.POSITIVE_INFINITY);
    expect(parseDrain('', {})).toBe(Number.POSITIVE_INFINITY);
    expect(parseDrain(undefined, { CI: 'true' })).toBe(CI_DRAIN_MS);
    expect(CI_DRAIN_MS).toBe(600_000);
    expect(parseDrain(undefined, {})).toBe(15_000);
    expect(() => parseDrain('soon', {})).toThrow(/--drain: expected a duration such as 90s, 10m or 2h .*got "soon"/);
  });

  it('without --drain, DEFLOW_DRAIN_DEADLINE (ISO 8601 or Unix seconds) bounds the drain to 30 s before it, counted when the drain starts, in CI or not; --drain still wins', () => {
    let now = Date.parse('2026-01-02T03:00:00Z');
    const clock = (): number => now;
    expect(DEADLINE_MARGIN_MS).toBe(30_000);
    const iso = parseDrain(undefined, { CI: 'true', DEFLOW_DRAIN_DEADLINE: '2026-01-02T03:20:00Z' }, clock);
    expect(typeof iso).toBe('function');
    expect((iso as () => number)()).toBe(20 * 60_000 - 30_000);
    now += 15 * 60_000;
    expect((iso as () => number)()).toBe(5 * 60_000 - 30_000);
    now += 10 * 60_000;
    expect((iso as () => number)()).toBe(0);
    const seconds = parseDrain(undefined, { DEFLOW_DRAIN_DEADLINE: String(now / 1000 + 90) }, clock);
    expect((seconds as () => number)()).toBe(60_000);
    expect(parseDrain('2m', { DEFLOW_DRAIN_DEADLINE: '2026-01-02T03:20:00Z' }, clock)).toBe(120_000);
    expect(parseDrain(undefined, { DEFLOW_DRAIN_DEADLINE: '' }, clock)).toBe(15_000);
    expect(() => parseDrain(undefined, { DEFLOW_DRAIN_DEADLINE: 'in 20 minutes' }, clock)).toThrow(
      'DEFLOW_DRAIN_DEADLINE: expected the time this session must end by, as ISO 8601 (2026-01-02T03:04:05Z) or Unix seconds, got "in 20 minutes"',
    );
  });

  it('on Ctrl-C says how many deliveries will fail, and either that it waits or how not to leave them failing', () => {
    expect(drainNotice(0, 15_000)).toBe('');
    expect(drainNotice(3, 15_000)).toBe(
      "deflow: 3 jobs in flight were given this session's webhook URL: once this session ends their deliveries (up to 6, each retried for about 23 h) fail while nothing answers at that URL, and 10 failed deliveries in a row switch off the account's webhooks. Pass --drain to wait for them, or resume soon at the same --webhook-url (it answers their retries)\n",
    );
    expect(drainNotice(1, 600_000)).toMatch(/^deflow: 1 job in flight was given this session's webhook URL: waiting up to 10 min for them to end \(--drain\), since their deliveries \(up to 2,/);
    expect(drainNotice(2, Number.POSITIVE_INFINITY)).toMatch(/: waiting for them to end \(--drain\)/);
  });
});
