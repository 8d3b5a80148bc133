import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/common/clock.js';
import type { JournalRecord } from '../../../src/engine/journal/journal-records.js';
import { clips, journalOf, runDurablyIn } from './durable-helpers.js';
import { useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const ONE_STEP = yaml(
  'version: 1',
  'name: resume-first-poll',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
);

/** The first delay of a job of an unobserved text task: its prior (10 s) / 5 while searching. */
const FIRST_DELAY_MS = 2000;

describe('a resumed job', () => {
  it('is polled at once when an earlier session journalled it as accepted long ago, not a first-poll delay after the resume', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': ONE_STEP, ...clips(1) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const dieAfterSubmitted = {
      onAfterSync(record: JournalRecord) {
        if (record.t === 'submitted') throw new Error('injected failure after submitted');
      },
    };
    const first = await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: dieAfterSubmitted });
    expect(first.outcome.status).toBe('failed');
    expect((await journalOf(dir)).at(-1)).toMatchObject({ t: 'submitted' });
    await emulator.clock.sleep(60_000);

    // The engine's waits, each with the polls the emulator had seen when it began.
    const pollsBefore = emulator.stats().polls;
    const waitsBeforeFirstPoll: number[] = [];
    const clock: Clock = {
      ...emulator.clock,
      now: () => emulator.clock.now(),
      sleep: (ms, signal) => {
        if (emulator.stats().polls === pollsBefore) waitsBeforeFirstPoll.push(ms);
        return emulator.clock.sleep(ms, signal);
      },
    };
    const second = await runDurablyIn(dir, emulator, { clock });
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true, runId: first.outcome.runId });
    expect(emulator.stats().submissions).toBe(1);
    expect(waitsBeforeFirstPoll.length).toBeGreaterThan(0);
    expect(Math.max(...waitsBeforeFirstPoll)).toBeLessThan(FIRST_DELAY_MS / 4);
  });
});
