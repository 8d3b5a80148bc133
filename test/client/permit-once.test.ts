import { describe, expect, test } from 'vitest';
import { permitOnce } from '../../src/client/permit-once.js';

const ANSWER = { status: 200, rateLimit: { windows: [] } };

describe('permitOnce', () => {
  test('the first of settle and abandon acts; later calls do nothing', () => {
    const calls: string[] = [];
    const permit = permitOnce('images/generations', { settle: (a) => calls.push(`settle ${a.status}`), abandon: (r) => calls.push(`abandon ${r}`) });
    expect(permit.bucket).toBe('images/generations');
    permit.settle(ANSWER);
    permit.abandon(true);
    permit.settle(ANSWER);
    expect(calls).toEqual(['settle 200']);
  });

  test('an abandoned slot is not settled afterwards', () => {
    const calls: string[] = [];
    const permit = permitOnce(null, { settle: (a) => calls.push(`settle ${a.status}`), abandon: (r) => calls.push(`abandon ${r}`) });
    permit.abandon(false);
    permit.settle(ANSWER);
    permit.abandon(true);
    expect(calls).toEqual(['abandon false']);
  });
});
