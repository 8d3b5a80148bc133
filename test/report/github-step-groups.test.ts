/**
 * The progress log in GitHub Actions (the heartbeat with GITHUB_ACTIONS=true): each workflow
 * step's summary folded into a `::group::` block written whole when the step settles, the
 * progress lines outside every block. The runner does not nest groups, so a block is never
 * left open while anything else is written, however the steps' events interleave.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/contracts/events.js';
import { HeartbeatRenderer } from '../../src/report/terminal/heartbeat-renderer.js';
import { createProgressRenderer } from '../../src/report/terminal/tty-renderer.js';
import { groupsOf } from '../helpers/github-groups.js';
import { done, failed, manualTicker, memoryStream, node, runFinished, runStarted, sampleRun, submitted, T0 } from './run-events.js';

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('step groups in a GitHub Actions log', () => {
  it('writes each step’s block whole when its last item settles, while steps run side by side; progress lines stay between blocks', () => {
    const stderr = memoryStream();
    const ticker = manualTicker();
    const renderer = new HeartbeatRenderer(stderr, { ticker, stepGroups: true, realNow: () => 0 });
    renderer.handle(runStarted([
      { id: 'draw', task: 'text-to-image', items: 2 },
      { id: 'speak', task: 'audio.speech', items: 2 },
    ]));
    const [d0, d1, s0, s1] = [node('draw', 0, 'a'), node('draw', 1, 'b'), node('speak', 0, 'a'), node('speak', 1, 'b')];
    renderer.handle(submitted(d0, T0 + 100, 'r-d0', 0.5));
    renderer.handle(submitted(s0, T0 + 200, 'r-s0', 0.25));
    renderer.handle(submitted(d1, T0 + 300, 'r-d1', 0.5));
    renderer.handle(done(d0, T0 + 1_000, { cost: 0.5, startedAt: T0 + 100 }));
    ticker.tick();
    renderer.handle(submitted(s1, T0 + 1_100, 'r-s1', 0.25));
    renderer.handle(done(s0, T0 + 1_500, { cost: 0.25, startedAt: T0 + 200 }));
    renderer.handle(done(s1, T0 + 2_000, { cost: 0.25, startedAt: T0 + 1_100 }));
    ticker.tick();
    renderer.handle(failed(d1, T0 + 4_300, { code: 'E_JOB_FAILED', message: 'no\nimage' }, 'r-d1', T0 + 300));
    renderer.handle(runFinished({ total: 4, done: 3, cached: 0, failed: 1, skipped: 0, unknown: 0, pending: 0 }, { ts: T0 + 4_400, spent: 1, quoted: 1.5 }));
    // (The ETA is the pace in real time: not this test's matter.)
    expect(lines(stderr.text()).map((line) => line.replace(/ · ETA .*$/, ' · ETA …'))).toEqual([
      '[deflow] running Podcast: 4 items in 2 steps (run run-1)',
      '[deflow] 1/4 done · 2 running · 0 failed · 0 skipped · $0.5000 spent · ETA …',
      '::group::✓ step speak (audio.speech): 2/2 done · $0.5000',
      '  done: 2 of 2',
      '  failed: 0',
      '  skipped: 0',
      '  unknown: 0',
      '  spent: $0.5000',
      '  took: 1.8s',
      '::endgroup::',
      '[deflow] 3/4 done · 1 running · 0 failed · 0 skipped · $1.00 spent · ETA …',
      '[deflow] ✗ draw[1] b: E_JOB_FAILED: no image',
      '::group::✗ step draw (text-to-image): 1/2 done · 1 failed · $0.5000',
      '  done: 1 of 2',
      '  failed: 1',
      '  skipped: 0',
      '  unknown: 0',
      '  spent: $0.5000',
      '  took: 4.2s',
      '  ✗ draw[1] b: E_JOB_FAILED: no image',
      '::endgroup::',
      '[deflow] failed (exit 1) in 4.4s: 3/4 done · 1 failed · 0 skipped · 0 unknown · $1.00 spent of $1.50 quoted',
    ]);
    expect(groupsOf(stderr.text()).map((group) => group.title.split(':')[0])).toEqual(['✓ step speak (audio.speech)', '✗ step draw (text-to-image)']);
  });

  it('gives every step of the sample run one block, with its cached, skipped and unknown items, and lists its first problems only', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker(), stepGroups: true });
    for (const event of sampleRun()) renderer.handle(event);
    const groups = groupsOf(stderr.text());
    expect(groups.map((group) => group.title)).toEqual(['✗ step transcribe (audio-to-text): 2/3 done · 1 failed · $0.0625', '✗ step speak (text-to-speech): 1/3 done · 1 failed · $0.1250']);
    expect(groups[0]!.body).toContain('  done: 2 of 3 (1 from the cache)');
    expect(groups[1]!.body).toEqual(expect.arrayContaining(['  skipped: 1', '  unknown: 1', '  ? speak[2] c.mp3: outcome unknown (not resubmitted): connection reset while submitting']));

    const many = memoryStream();
    const busy = new HeartbeatRenderer(many, { ticker: manualTicker(), stepGroups: true });
    busy.handle(runStarted([{ id: 's', task: 'text-to-image', items: 8 }]));
    for (let i = 0; i < 8; i++) busy.handle(failed(node('s', i, `k${i}`), T0 + i, { code: 'E_JOB_FAILED', message: `bad ${i}` }));
    const [block] = groupsOf(many.text());
    expect(block!.body.filter((line) => line.startsWith('  ✗'))).toHaveLength(5);
    expect(block!.body.at(-1)).toBe('  and 3 more failed or unknown: see the report');
  });

  it('writes the block of a step that never settled when the run ends, counting what did not run', () => {
    const stderr = memoryStream();
    const renderer = new HeartbeatRenderer(stderr, { ticker: manualTicker(), stepGroups: true });
    renderer.handle(runStarted([{ id: 'fan', task: 'text-to-image', items: 10 }]));
    renderer.handle(submitted(node('fan', 0, 'k0'), T0 + 10, 'r0', 0.01));
    renderer.handle(done(node('fan', 0, 'k0'), T0 + 500, { cost: 0.01, startedAt: T0 + 10 }));
    expect(stderr.text()).not.toContain('::group::');
    renderer.handle({ ...runFinished({ total: 10, done: 1, cached: 0, failed: 0, skipped: 0, unknown: 0, pending: 9 }, { ts: T0 + 600 }), status: 'interrupted', exitCode: 130 } as RunEvent);
    const [block] = groupsOf(stderr.text());
    expect(block!.title).toBe('… step fan (text-to-image): 1/10 done · 9 not run · $0.0100');
    expect(block!.body).toContain('  not run: 9');
    expect(lines(stderr.text()).at(-1)).toMatch(/^\[deflow\] interrupted \(exit 130\)/);
  });

  it('is on in a non-terminal log when GITHUB_ACTIONS is true, and off elsewhere', () => {
    const logOf = (env: NodeJS.ProcessEnv): string => {
      const stream = memoryStream();
      const renderer = createProgressRenderer(stream, { env, tty: false, color: false, ticker: manualTicker() });
      for (const event of sampleRun()) renderer.handle(event);
      return stream.text();
    };
    expect(groupsOf(logOf({ GITHUB_ACTIONS: 'true' }))).toHaveLength(2);
    expect(logOf({})).not.toContain('::group::');
    expect(logOf({ GITHUB_ACTIONS: 'false' })).not.toContain('::group::');
  });
});
