import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { PollEstimator } from '../../../src/engine/run/poll/poll-estimator.js';
import { runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

/** Feeds the estimator jobs of random durations, polled at its own first-poll estimate. */
function simulate(estimator: PollEstimator, durations: () => number, jobs: number): { foundDone: number; lastDelay: number } {
  let foundDone = 0;
  for (let i = 0; i < jobs; i++) {
    const delay = estimator.firstDelay('task', 'text');
    const done = durations() <= delay;
    if (done) foundDone++;
    estimator.observeFirstPoll('task', 'text', delay, done, done ? 100 : 50);
  }
  return { foundDone, lastDelay: estimator.firstDelay('task', 'text') };
}

/** A seeded uniform random source. */
function uniform(seed: number, low: number, high: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return low + (state / 2 ** 32) * (high - low);
  };
}

describe('poll estimator', () => {
  it('settles the first poll where about 85 % of jobs are done (the default quantile)', () => {
    const estimator = new PollEstimator();
    simulate(estimator, uniform(1, 21_000, 39_000), 300);
    const settled = simulate(estimator, uniform(2, 21_000, 39_000), 1000);
    expect(settled.foundDone / 1000).toBeGreaterThan(0.78);
    expect(settled.foundDone / 1000).toBeLessThan(0.92);
    expect(settled.lastDelay).toBeGreaterThan(33_000);
    expect(settled.lastDelay).toBeLessThan(38_500);
  });

  it('settles the first poll where about 80 % of jobs are done at quantile 0.8', () => {
    const estimator = new PollEstimator({ quantile: 0.8 });
    simulate(estimator, uniform(1, 21_000, 39_000), 300);
    const settled = simulate(estimator, uniform(2, 21_000, 39_000), 1000);
    expect(settled.foundDone / 1000).toBeGreaterThan(0.72);
    expect(settled.foundDone / 1000).toBeLessThan(0.88);
    expect(settled.lastDelay).toBeGreaterThan(31_000);
    expect(settled.lastDelay).toBeLessThan(37_000);
  });

  it('leaves a prior far too long within a few dozen jobs', () => {
    const estimator = new PollEstimator({ priorMs: () => 60_000 });
    simulate(estimator, uniform(3, 800, 1200), 40);
    expect(estimator.firstDelay('task', 'text')).toBeLessThan(2000);
  });

  it('reads a running scout again soon and takes its two readings as its duration, queued time excluded', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    expect(estimator.firstDelay('task', 'text')).toBe(2000);
    // A 30 s job queued for its first 3 s: 7.4 % after 5 s reads as a 67.6 s job from one reading.
    estimator.observeFirstPoll('task', 'text', 5000, false, 7.4);
    expect(estimator.settledMs('task')).toBeUndefined();
    const again = estimator.nextDelay({ elapsedMs: 5000, progress: 7.4, previousDelayMs: 5000, key: 'task' });
    expect(again).toBe(1500);
    estimator.observeReadings('task', 'text', { elapsedMs: 5000, progress: 7.4 }, { elapsedMs: 6500, progress: 12.96 });
    // Not settled on one scout; until two are measured, its duration is the estimate.
    expect(estimator.settledMs('task')).toBeUndefined();
    expect(estimator.typicalMs('task', 'text')).toBeCloseTo(30_000, -2);
    estimator.observeReadings('task', 'text', { elapsedMs: 5000, progress: 7.4 }, { elapsedMs: 6500, progress: 12.96 });
    expect(estimator.settledMs('task')).toBeCloseTo(30_000, -2);
    expect(estimator.firstDelay('task', 'text')).toBeCloseTo(30_000, -2);
  });

  it('settles on the longer of two scouts\' measured durations (the 0.85 quantile of two)', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    for (let i = 0; i < 2; i++) estimator.firstDelay('task', 'text');
    const ends = [36_000, 28_000];
    ends.forEach((end, i) => {
      estimator.observeReadings('task', 'text', { elapsedMs: 4000, progress: (4000 / end) * 100 }, { elapsedMs: 6000, progress: (6000 / end) * 100 });
      if (i < 1) expect(estimator.settledMs('task')).toBeUndefined();
    });
    expect(estimator.settledMs('task')).toBeCloseTo(36_000, -1);
  });

  it('extrapolates one reading with the queued share the scouts measured, so the next poll lands just past the end', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    // Four 30 s scouts queued 9 s (30 %): their progress rises 100 % over 21 s.
    for (let i = 0; i < 4; i++) estimator.observeReadings('task', 'text', { elapsedMs: 12_000, progress: (3 / 21) * 100 }, { elapsedMs: 15_000, progress: (6 / 21) * 100 });
    // Another job (39 s, queued 11.7 s) read once at 35 s: 85.3 %. Extrapolated from acceptance that is a 41 s job.
    const delay = estimator.nextDelay({ elapsedMs: 35_000, progress: ((35 - 11.7) / 27.3) * 100, previousDelayMs: 35_000, key: 'task' });
    expect(35_000 + delay).toBeGreaterThan(39_000);
    expect(35_000 + delay).toBeLessThan(40_500);
  });

  it('places the next poll of a job read twice just past the end its progress rate gives', () => {
    const estimator = new PollEstimator();
    const delay = estimator.nextDelay({ elapsedMs: 20_000, progress: 60, previousDelayMs: 10_000, previous: { elapsedMs: 10_000, progress: 20 }, key: 'task' });
    // 4 % per second: 100 % at 30 s.
    expect(20_000 + delay).toBeGreaterThan(30_000);
    expect(20_000 + delay).toBeLessThan(30_500);
  });

  it('aims the next poll just past the end that progress points to', () => {
    const estimator = new PollEstimator();
    const delay = estimator.nextDelay({ elapsedMs: 30_000, progress: 75, previousDelayMs: 30_000 });
    expect(delay).toBeGreaterThan(10_000);
    expect(delay).toBeLessThan(12_000);
  });

  it('polls a job found running past its settled duration again after a tenth of that duration, growing by half each time', () => {
    const estimator = new PollEstimator();
    // Uncapped, a backoff from a first wait of 36 s would wait 54 s more.
    expect(estimator.nextDelay({ elapsedMs: 36_000, progress: null, previousDelayMs: 36_000 })).toBe(54_000);
    expect(estimator.nextDelay({ elapsedMs: 36_000, progress: null, previousDelayMs: 36_000, typicalMs: 36_000 })).toBe(3600);
    expect(estimator.nextDelay({ elapsedMs: 39_600, progress: null, previousDelayMs: 3600, typicalMs: 36_000 })).toBe(5400);
    // A tiny progress reading (0.5 % after 36 s: 7,200 s) is not trusted past the job's typical end.
    expect(estimator.nextDelay({ elapsedMs: 36_000, progress: 0.5, previousDelayMs: 36_000, typicalMs: 36_000 })).toBe(3600);
    // Younger than its typical duration: no later than that duration plus the tail step.
    expect(estimator.nextDelay({ elapsedMs: 10_000, progress: 1, previousDelayMs: 10_000, typicalMs: 36_000 })).toBe(26_000 + 3600);
  });

  it('calibrates from the first progress reading of 10 % or more when the search ended on queued jobs', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    // Three jobs still queued at their early first polls: the search ends on the prior.
    for (let i = 0; i < 3; i++) estimator.observeFirstPoll('task', 'text', 2000, false, 0);
    expect(estimator.settledMs('task')).toBe(10_000);
    // A reading just out of the queue says nothing.
    estimator.observeFirstPoll('task', 'text', 10_000, false, 0.5);
    expect(estimator.settledMs('task')).toBeLessThan(13_000); // one tracker step, not 2,000 s
    estimator.observeFirstPoll('task', 'text', 10_000, false, 25);
    expect(estimator.settledMs('task')).toBe(40_000);
  });

  it('sends two scouts on early first polls while a duration is unknown; the jobs started with them are planned on the prior', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    const first = Array.from({ length: 10 }, () => estimator.firstDelay('task', 'text'));
    expect(first).toEqual([2000, 2000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
  });

  it('raises a settled estimate to the quantile of the durations seen when first polls find jobs running past it', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    // Two short scouts (24-25 s of a 21-39 s spread, queued for their first 10 %) settle on 25 s.
    [24_000, 25_000].forEach((end) => {
      estimator.observeReadings('task', 'text', { elapsedMs: 0.2 * end, progress: (0.1 / 0.9) * 100 }, { elapsedMs: 0.3 * end, progress: (0.2 / 0.9) * 100 });
    });
    expect(estimator.settledMs('task')).toBeCloseTo(25_000, -2);
    // The first wave at 25 s: two jobs done, two running whose single reading points to 33 s and 36 s.
    const reading = (end: number) => ((25_000 / end - 0.1) / 0.9) * 100;
    estimator.observeFirstPoll('task', 'text', 25_000, true, 100);
    estimator.observeFirstPoll('task', 'text', 25_000, false, reading(33_000));
    estimator.observeFirstPoll('task', 'text', 25_000, true, 100);
    estimator.observeFirstPoll('task', 'text', 25_000, false, reading(36_000));
    // Of 6 durations seen, the 0.85 quantile is the longest.
    expect(estimator.settledMs('task')).toBeCloseTo(36_000, -2);
  });

  it('does not raise a settled estimate on jobs found done, however late they were polled', () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    [24_000, 25_000].forEach((end) => {
      estimator.observeReadings('task', 'text', { elapsedMs: 0.2 * end, progress: (0.1 / 0.9) * 100 }, { elapsedMs: 0.3 * end, progress: (0.2 / 0.9) * 100 });
    });
    for (let i = 0; i < 10; i++) estimator.observeFirstPoll('task', 'text', 90_000, true, 100);
    // A job found running just past the estimate moves it at most to that job's end, not to 90 s.
    estimator.observeFirstPoll('task', 'text', 25_000, false, ((25_000 / 26_000 - 0.1) / 0.9) * 100);
    expect(estimator.settledMs('task')).toBeGreaterThan(24_900);
    expect(estimator.settledMs('task')).toBeLessThan(26_500);
  });

  it('tells the jobs planned during the search when it ends, so one scout\'s overshooting reading is not slept out', async () => {
    const estimator = new PollEstimator({ priorMs: () => 10_000 });
    estimator.firstDelay('task', 'audio');
    estimator.firstDelay('task', 'audio');
    // A 10 s job queued for 1 s reads 11.1 % at 2 s: 18 s from one reading, the provisional estimate.
    estimator.observeFirstPoll('task', 'audio', 2000, false, 11.1);
    expect(estimator.firstDelay('task', 'audio')).toBeCloseTo(18_000, -2);
    let settled = false;
    const told = estimator.whenSettled('task').then(() => (settled = true));
    estimator.observeReadings('task', 'audio', { elapsedMs: 2000, progress: 11.1 }, { elapsedMs: 3000, progress: 22.2 });
    await Promise.resolve();
    expect(settled).toBe(false);
    estimator.observeReadings('task', 'audio', { elapsedMs: 2000, progress: 11.1 }, { elapsedMs: 3000, progress: 22.2 });
    await told;
    expect(estimator.settledMs('task')).toBeCloseTo(10_000, -2);
    await expect(estimator.whenSettled('task')).resolves.toBeUndefined();
  });

  it('backs off, within its cap, when the job reports no progress', () => {
    const estimator = new PollEstimator({ maxDelayMs: 20_000 });
    expect(estimator.nextDelay({ elapsedMs: 8000, progress: 0, previousDelayMs: 8000 })).toBe(12_000);
    expect(estimator.nextDelay({ elapsedMs: 60_000, progress: null, previousDelayMs: 16_000 })).toBe(20_000);
  });
});

describe('polling over loopback', () => {
  it('spends about one status request per job', async () => {
    const clips = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2)]));
    const workflow = yaml(
      'version: 1',
      'name: polls',
      'steps:',
      '  transcribe:',
      '    task: audio.transcribe',
      '    for_each: { glob: "clips/*.mp3" }',
      '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow, ...clips });
    const emulator = await useFastEmulator({
      rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 20 } } },
      jobs: { durations: { 'audio/transcriptions': 30_000 }, jitter: 0.3, scale_by_input: false },
    });
    const run = await runIn(dir, emulator);
    expect(run.outcome.counts.done).toBe(40);
    expect(emulator.stats().polls / 40).toBeLessThanOrEqual(2);
  });
});
