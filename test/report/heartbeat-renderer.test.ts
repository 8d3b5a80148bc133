import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/contracts/events.js';
import { HeartbeatRenderer } from '../../src/report/terminal/heartbeat-renderer.js';
import { done, failed, manualTicker, memoryStream, node, runFinished, runStarted, sampleRun, submitted, T0 } from './run-events.js';

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('HeartbeatRenderer', () => {
  it('prints a progress line when something changed, not one per item, and not the same line every interval', () => {
    const stderr = memoryStream();
    const ticker = manualTicker();
    let real = 1_000_000;
    const renderer = new HeartbeatRenderer(stderr, { ticker, realNow: () => real });
    renderer.handle(runStarted([{ id: 'fan', task: 'text-to-image', items: 1000 }]));
    for (let i = 0; i < 128; i++) renderer.handle(submitted(node('fan', i, `k${i}`), T0 + i, `r${i}`, 0.001));
    for (let i = 0; i < 120; i++) renderer.handle(done(node('fan', i, `k${i}`), T0 + 200 + i, { cost: 0.00102833, startedAt: T0 + i }));
    expect(lines(stderr.text())).toEqual(['[deflow] running Podcast: 1000 items in 1 steps (run run-1)']);
    // 120 items in 12 real seconds: 880 left at that pace take 88 s.
    real += 12_000;
    ticker.tick();
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] 120/1000 done · 8 running · 0 failed · 0 skipped · $0.1234 spent · ETA 1m 28s');
    // Nothing changed: no new line until 30 s of 5 s ticks have passed.
    for (let i = 0; i < 5; i++) ticker.tick();
    expect(lines(stderr.text())).toHaveLength(2);
    ticker.tick();
    expect(lines(stderr.text())).toHaveLength(3);
    renderer.handle(done(node('fan', 120, 'k120'), T0 + 400, { cost: 0.001, startedAt: T0 + 120 }));
    ticker.tick();
    expect(lines(stderr.text())).toHaveLength(4);
    expect(lines(stderr.text()).at(-1)).toMatch(/^\[deflow\] 121\/1000 done/);
  });

  it('says what a pool waits for and for how long, with an ETA from the learned rate, labelled virtual on the emulator clock', () => {
    const stderr = memoryStream();
    const ticker = manualTicker();
    let real = 1_000_000;
    const renderer = new HeartbeatRenderer(stderr, { ticker, realNow: () => real });
    renderer.handle({ ...runStarted([{ id: 'speak', task: 'audio.speech', items: 40 }]), timeScale: 20 } as RunEvent);
    renderer.handle({ type: 'rate-wait', ts: T0 + 1000, pool: 'audio/speech', waitMs: 42_000, limit: 20, windowSeconds: 60 });
    ticker.tick();
    expect(lines(stderr.text()).at(-1)).toBe(
      '[deflow] 0/40 done · 0 running · 0 failed · 0 skipped · $0.00 spent · waiting: audio/speech: 20/min, next window in 42.0s virtual · ETA 6.0s (2m 00s virtual)',
    );
    // Half a real second later at time scale 20: 10 virtual seconds have passed; the same wait is not printed again.
    real += 500;
    ticker.tick();
    expect(lines(stderr.text())).toHaveLength(2);
    // Past the window: the wait is gone, which is a change.
    real += 2000;
    ticker.tick();
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] 0/40 done · 0 running · 0 failed · 0 skipped · $0.00 spent · ETA estimating');
  });

  it('puts the spend against the quote and a real-time ETA on every progress line; cached items do not set the pace', () => {
    const stderr = memoryStream();
    const ticker = manualTicker();
    let real = 5_000_000;
    const renderer = new HeartbeatRenderer(stderr, { ticker, realNow: () => real });
    const events = sampleRun();
    // run-started, quoted ($0.25), one cached item: nothing has been worked on yet.
    for (const event of events.slice(0, 3)) renderer.handle(event);
    ticker.tick();
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] 1/6 done · 0 running · 0 failed · 0 skipped · $0.00 spent of $0.2500 quoted · ETA estimating');
    // One item done at the service after 2 real seconds (the events' own times are the service's): 4 left take 8 s.
    renderer.handle(submitted(node('transcribe', 0, 'a.mp3'), T0 + 100, 'req-t0', 0.0625));
    renderer.handle(done(node('transcribe', 0, 'a.mp3'), T0 + 900_000, { cost: 0.0625, startedAt: T0 + 100 }));
    real += 2000;
    ticker.tick();
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] 2/6 done · 0 running · 0 failed · 0 skipped · $0.0625 spent of $0.2500 quoted · ETA 8.0s');
  });

  it('says a used-up daily window defers its pool while other pools go on', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker() });
    renderer.handle(runStarted([{ id: 'speak', task: 'audio.speech', items: 4 }]));
    renderer.handle({ type: 'daily-limit', ts: T0, pool: 'audio/speech', resetAt: T0 + 3_600_000 });
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] daily rate limit reached (audio/speech): its items are deferred until 2026-01-02T04:04:05.000Z; other pools go on');
  });

  it('lists the first failures, then only counts them', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker(), maxProblemLines: 2 });
    renderer.handle(runStarted([{ id: 's', task: 'text-to-image', items: 5 }]));
    for (let i = 0; i < 5; i++) renderer.handle(failed(node('s', i, `k${i}`), T0 + i, { code: 'E_JOB_FAILED', message: `bad\nthing ${i}` }));
    expect(lines(stderr.text()).slice(1)).toEqual([
      '[deflow] ✗ s[0] k0: E_JOB_FAILED: bad thing 0',
      '[deflow] ✗ s[1] k1: E_JOB_FAILED: bad thing 1',
      '[deflow] further failures are counted, not listed; see the report',
    ]);
  });

  it('stops ticking at run-finished and prints a final summary and the resume command', () => {
    const stderr = memoryStream();
    const ticker = manualTicker();
    const renderer = new HeartbeatRenderer(stderr, { ticker });
    const events: RunEvent[] = sampleRun();
    const last = events.pop()!;
    for (const event of events) renderer.handle(event);
    expect(ticker.active()).toBe(1);
    renderer.handle({ ...last, status: 'interrupted', exitCode: 130, resumeCommand: 'deflow resume run-1' } as RunEvent);
    expect(ticker.active()).toBe(0);
    expect(lines(stderr.text()).slice(-2)).toEqual([
      '[deflow] interrupted (exit 130) in 2.5s: 3/6 done (1 cached) · 1 failed · 1 skipped · 1 unknown · $0.1875 spent of $0.2500 quoted',
      '[deflow] resume with: deflow resume run-1',
    ]);
  });

  it('shows the whole sample run as a handful of lines', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker() });
    for (const event of sampleRun()) renderer.handle(event);
    expect(lines(stderr.text())).toEqual([
      '[deflow] running Podcast: 6 items in 2 steps (run run-1)',
      '[deflow] quoted $0.2500 (up to $0.2750); cap $1.00: within',
      '[deflow] ✗ transcribe[1] b.mp3: E_JOB_FAILED: the job failed',
      '[deflow] warning: speech model is slow today',
      '[deflow] ? speak[2] c.mp3: outcome unknown (not resubmitted): connection reset while submitting',
      '[deflow] failed (exit 1) in 2.5s: 3/6 done (1 cached) · 1 failed · 1 skipped · 1 unknown · $0.1875 spent of $0.2500 quoted',
    ]);
  });

  it('gives the run’s duration in real time, with the virtual time beside it, when it ran on the emulator’s accelerated clock', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker() });
    const events = sampleRun();
    for (const event of events) renderer.handle(event.type === 'run-started' ? { ...event, timeScale: 20 } : event);
    expect(lines(stderr.text()).at(-1)).toBe(
      '[deflow] failed (exit 1) in 125ms (2.5s virtual): 3/6 done (1 cached) · 1 failed · 1 skipped · 1 unknown · $0.1875 spent of $0.2500 quoted',
    );
  });

  it('rejects a non-positive interval', () => {
    expect(() => new HeartbeatRenderer(memoryStream(), { intervalMs: 0 })).toThrow('intervalMs must be a positive number, got 0');
  });

  it('reports pending items in the final line of an interrupted run', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker() });
    renderer.handle(runStarted([{ id: 's', task: 'text-to-image', items: 4 }]));
    renderer.handle(done(node('s', 0, 'a'), T0 + 10, { cost: 0.5, startedAt: T0 }));
    renderer.handle(runFinished({ total: 4, done: 1, cached: 0, failed: 0, skipped: 0, unknown: 0, pending: 3 }, { ts: T0 + 61_000, status: 'interrupted', exitCode: 130, spent: 0.5 }));
    expect(lines(stderr.text()).at(-1)).toBe('[deflow] interrupted (exit 130) in 1m 01s: 1/4 done · 0 failed · 0 skipped · 0 unknown · 3 not finished · $0.5000 spent');
  });
});
