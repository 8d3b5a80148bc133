import { describe, expect, it } from 'vitest';
import { FirstPollWaves, untilOrAborted } from '../../../src/engine/run/poll/first-poll-waves.js';

/** Lets `count` jobs ask to send their first poll; returns how many went and the waits of the others. */
function enterMany(waves: FirstPollWaves, count: number): { went: number; waiting: Array<Promise<void>> } {
  let went = 0;
  const waiting: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const wait = waves.enter('task');
    if (wait === undefined) went++;
    else waiting.push(wait);
  }
  return { went, waiting };
}

describe('first polls in waves', () => {
  it('lets four first polls of a key go at once and holds the rest until all four have answered', async () => {
    const waves = new FirstPollWaves();
    const { went, waiting } = enterMany(waves, 10);
    expect(went).toBe(4);
    expect(waiting).toHaveLength(6);
    let released = 0;
    for (const wait of waiting) void wait.then(() => released++);
    for (let i = 0; i < 3; i++) waves.leave('task', false);
    await Promise.resolve();
    expect(released).toBe(0);
    waves.leave('task', false);
    await Promise.all(waiting);
    expect(released).toBe(6);
    // Another key is not held by this one.
    expect(waves.enter('other')).toBeUndefined();
  });

  it('doubles the next wave after a full wave that left the estimate where it was, and goes back to four after one that moved it later', () => {
    const waves = new FirstPollWaves();
    expect(enterMany(waves, 5).went).toBe(4);
    for (let i = 0; i < 4; i++) waves.leave('task', false);
    expect(enterMany(waves, 9).went).toBe(8);
    for (let i = 0; i < 8; i++) waves.leave('task', i === 3);
    expect(enterMany(waves, 9).went).toBe(4);
  });

  it('does not grow the wave for first polls that came one by one', () => {
    const waves = new FirstPollWaves();
    for (let i = 0; i < 6; i++) {
      expect(waves.enter('task')).toBeUndefined();
      waves.leave('task', false);
    }
    expect(enterMany(waves, 9).went).toBe(4);
  });

  it('stops waiting when the job is aborted', async () => {
    const waves = new FirstPollWaves();
    enterMany(waves, 4);
    const controller = new AbortController();
    const wait = untilOrAborted(waves.enter('task')!, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(wait).rejects.toThrow('stopped');
  });
});
