import { describe, expect, it } from 'vitest';
import { HeartbeatRenderer } from '../../src/report/terminal/heartbeat-renderer.js';
import { createProgressRenderer, TtyRenderer } from '../../src/report/terminal/tty-renderer.js';
import { done, manualTicker, memoryStream, node, runFinished, runStarted, sampleRun, T0 } from './run-events.js';

// SGR ("select graphic rendition") sequences set colours; cursor movement uses other final letters.
const SGR = /\u001b\[[0-9;]*m/;

function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

async function renderSample(options: { color: boolean }): Promise<string> {
  // `color: false` is what createReporters passes when NO_COLOR is set (see color.test.ts).
  const stderr = memoryStream({ isTTY: true });
  const ticker = manualTicker();
  const renderer = new TtyRenderer(stderr, { color: options.color, ticker, animate: false });
  const events = sampleRun();
  const half = Math.floor(events.length / 2);
  for (const event of events.slice(0, half)) renderer.handle(event);
  // listr2 starts its tasks asynchronously; once both run, a tick refreshes their titles.
  for (let i = 0; i < 400 && !stripAnsi(stderr.text()).includes('❯ speak'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  ticker.tick();
  for (const event of events.slice(half)) renderer.handle(event);
  await renderer.finish();
  return stderr.text();
}

describe('TtyRenderer', () => {
  it('draws one task per step with done/running/failed counts and spend', async () => {
    const text = stripAnsi(await renderSample({ color: false }));
    expect(text).toContain('transcribe (audio-to-text)  2/3 done · 1 running · 1 cached · $0.0625\n');
    expect(text).toContain('✖ transcribe (audio-to-text)  2/3 done · 1 cached · 1 failed · $0.0625\n');
    expect(text).toContain('✖ speak (text-to-speech)  1/3 done · 1 unknown · 1 skipped · $0.1250\n');
    expect(text).toContain('deflow failed (exit 1) in 2.5s: 3/6 done (1 cached) · 1 failed · 1 skipped · 1 unknown · $0.1875 spent of $0.2500 quoted');
  });

  it('draws one overall line above the steps: done/total, spend against the quote, ETA in real time', async () => {
    const text = stripAnsi(await renderSample({ color: false }));
    const overall = text.indexOf('overall  ');
    expect(overall).toBeGreaterThanOrEqual(0);
    expect(overall).toBeLessThan(text.indexOf('transcribe (audio-to-text)'));
    expect(text).toMatch(/overall {2}0\/6 done · \$0\.00 spent · ETA estimating\n/);
    expect(text).toMatch(/overall {2}2\/6 done · \$0\.0625 spent of \$0\.2500 quoted · ETA \d/);
    // The run's end: what it did, no ETA.
    expect(text).toMatch(/✔ overall {2}3\/6 done · \$0\.1875 spent of \$0\.2500 quoted\n/);
  });

  it('writes no colour codes when colour is off (NO_COLOR)', async () => {
    expect(await renderSample({ color: false })).not.toMatch(SGR);
  });

  it('colours icons and counts when colour is on', async () => {
    const text = await renderSample({ color: true });
    expect(text).toContain('\u001b[31m1 failed\u001b[39m');
    expect(text).toMatch(SGR);
  });
});

it('marks steps with items left when the run was interrupted as skipped', async () => {
  const stderr = memoryStream({ isTTY: true });
  const renderer = new TtyRenderer(stderr, { color: false, ticker: manualTicker(), animate: false });
  renderer.handle(runStarted([{ id: 'draw', task: 'text-to-image', items: 3 }]));
  renderer.handle(done(node('draw', 0, 'a'), T0 + 5, { cost: 0.5, startedAt: T0 }));
  renderer.handle(
    runFinished({ total: 3, done: 1, cached: 0, failed: 0, skipped: 0, unknown: 0, pending: 2 }, {
      ts: T0 + 10,
      status: 'interrupted',
      exitCode: 130,
      resumeCommand: 'deflow resume run-1',
    }),
  );
  await renderer.finish();
  const text = stripAnsi(stderr.text());
  expect(text).toContain('draw (text-to-image)  1/3 done · $0.5000 · 2 not run');
  expect(text).toContain('resume with: deflow resume run-1');
});

describe('createProgressRenderer', () => {
  it('uses the task list in a terminal', () => {
    expect(createProgressRenderer(memoryStream({ isTTY: true }), { env: {}, tty: true, color: false })).toBeInstanceOf(TtyRenderer);
  });

  it('falls back to the heartbeat outside a terminal or with TERM=dumb', () => {
    expect(createProgressRenderer(memoryStream(), { env: {}, tty: false, color: false })).toBeInstanceOf(HeartbeatRenderer);
    expect(createProgressRenderer(memoryStream({ isTTY: true }), { env: { TERM: 'dumb' }, tty: true, color: false })).toBeInstanceOf(
      HeartbeatRenderer,
    );
  });

  it('shows in a waiting step\'s title what its pool waits for and for how long', async () => {
    const stderr = memoryStream({ isTTY: true });
    const ticker = manualTicker();
    const renderer = new TtyRenderer(stderr, { color: false, ticker, animate: false });
    renderer.handle({ ...runStarted([{ id: 'speak', task: 'audio.speech', items: 40 }]) });
    for (let i = 0; i < 400 && !stripAnsi(stderr.text()).includes('❯ speak'); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    renderer.handle({ type: 'rate-wait', ts: T0 + 1000, pool: 'audio/speech', waitMs: 42_000, limit: 20, windowSeconds: 60 });
    ticker.tick();
    for (let i = 0; i < 400 && !stripAnsi(stderr.text()).includes('waiting'); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(stripAnsi(stderr.text())).toMatch(/speak \(audio\.speech\) {2}0\/40 done · \$0\.00 · waiting: audio\/speech: 20\/min,\s+next window in 4\d\.\ds/);
    renderer.handle(runFinished({ total: 40, done: 0, cached: 0, failed: 0, skipped: 0, unknown: 0, pending: 40 }, { ts: T0 + 2000 }));
    await renderer.finish();
  });
});
