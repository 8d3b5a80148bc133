/**
 * The nightly scenario of issue 14, over loopback against the emulator on an accelerated
 * clock: a folder of 12 clips plus one corrupt file and one file over the size cap,
 * transcribe → speak, a `gather: partial` step that embeds every transcript, and a daily
 * limit of 5 on speech.
 */
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { runDurably } from '../../../src/engine/run-durably.js';
import { validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import { clientFor, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const NIGHTLY = yaml(
  'version: 1',
  'name: nightly',
  'defaults: { keep_going: true }',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "inbox/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '    save: "transcripts/${{ item.stem }}.txt"',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
  '    save: "speech/${{ item.stem }}.mp3"',
  '  embed:',
  '    task: text.embed',
  '    gather: partial',
  '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
  '    save: "embeddings.json"',
);

/** A run of the workflow as `deflow run` does it: validated with keep-going, then run durably. */
async function nightly(dir: string, emulator: RunningEmulator, options: { waitDaily?: boolean } = {}) {
  const validation = await validateWorkflow(join(dir, 'nightly.yaml'), { offline: true, keepGoing: 'workflow' });
  if (!validation.ok || !validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const events: RunEvent[] = [];
  const outcome = await runDurably({
    graph: validation.graph,
    client: clientFor(emulator),
    stateDir: join(dir, '.deflow'),
    onEvent: (event) => events.push(event),
    excluded: validation.excluded.map((e) => ({ step: e.item!.step, index: e.item!.index, reason: e.message })),
    waitDaily: options.waitDaily ?? false,
  });
  return { outcome, events, excluded: validation.excluded };
}

/** The number of embedding vectors in a saved result (a list of vectors, or `{ data: [{ embedding }] }`). */
function countVectors(value: unknown): number {
  if (Array.isArray(value)) return value.filter((v) => Array.isArray(v) || (typeof v === 'object' && v !== null)).length;
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) if (Array.isArray(inner)) return countVectors(inner);
  }
  return 0;
}

function jobsOf(emulator: RunningEmulator, task: string): number {
  return emulator.jobs().filter((j) => j.task === task).length;
}

describe('the nightly scenario', () => {
  it('keeps going past 2 bad files, embeds the 12 transcripts, defers speech at its daily limit, and finishes it after the reset without paying twice', async () => {
    const emulator = await useFastEmulator({ time_scale: 20_000, jobs: { duration_ms: 2000 }, rate_limits: { endpoints: { 'audio/speech': { rpm: 60, rpd: 5 } } } });
    const files: Record<string, string | Buffer> = { 'nightly.yaml': NIGHTLY, 'inbox/zz-corrupt.mp3': 'this is not audio' };
    for (let i = 0; i < 12; i++) files[`inbox/clip-${String(i).padStart(2, '0')}.mp3`] = makeMp3(2 + i * 0.05);
    const dir = await useWorkspace(files);
    // Over the 20 MiB cap for audio given to transcription (a sparse file: cheap to make).
    await writeFile(join(dir, 'inbox/zz-huge.mp3'), makeMp3(2));
    await truncate(join(dir, 'inbox/zz-huge.mp3'), 20 * 1024 * 1024 + 1);

    // The night's run: exit 5, 12 transcripts, 5 speeches, one embedding of 12 transcripts, 2 files named.
    const first = await nightly(dir, emulator);
    expect(first.outcome.exitCode).toBe(5);
    expect(first.outcome.status).toBe('daily-limit');
    expect(first.excluded.map((e) => e.message)).toEqual([
      expect.stringMatching(/steps\.transcribe\.with\.source_file: inbox\/zz-corrupt\.mp3: expected .*, got content of an unrecognised format \(item 12\)$/),
      expect.stringMatching(/steps\.transcribe\.with\.source_file: inbox\/zz-huge\.mp3: expected at most 20 MiB, got 20 MiB|expected at most 20971520 bytes, got 20971521 bytes/),
    ]);
    const skipped = first.events.filter((e): e is Extract<RunEvent, { type: 'item-skipped' }> => e.type === 'item-skipped' && e.kind === 'invalid');
    expect(skipped.map((e) => e.node.key)).toEqual(['inbox/zz-corrupt.mp3', 'inbox/zz-huge.mp3']);
    expect(jobsOf(emulator, 'audio.transcribe')).toBe(12);
    expect(jobsOf(emulator, 'audio.speech')).toBe(5);
    expect(jobsOf(emulator, 'text.embed')).toBe(1);
    const embedJob = emulator.jobs().find((j) => j.task === 'text.embed')!;
    expect(embedJob.status).toBe('done');
    // One vector per transcript that succeeded: the partial gather sent 12 inputs.
    const vectors = JSON.parse(await readFile(join(dir, 'out/embeddings.json'), 'utf8')) as unknown;
    expect(countVectors(vectors)).toBe(12);
    const deferred = first.events.filter((e): e is Extract<RunEvent, { type: 'item-deferred' }> => e.type === 'item-deferred');
    expect(deferred).toHaveLength(7);
    const resetAt = first.outcome.deferred[0]!.resetAt!;
    expect(first.outcome.deferred).toEqual([{ pool: 'audio/speech', resetAt, items: 7 }]);
    expect(emulator.stats().by_status['429'] ?? 0).toBe(0);

    // A re-run before the reset knows the window from the journal: nothing goes to speech, nothing else is paid again.
    const early = await nightly(dir, emulator);
    expect(early.outcome.exitCode).toBe(5);
    expect(early.outcome.resumed).toBe(true);
    expect(emulator.stats().requests).toBeGreaterThan(0);
    expect(jobsOf(emulator, 'audio.speech')).toBe(5);
    expect(jobsOf(emulator, 'audio.transcribe')).toBe(12);
    expect(jobsOf(emulator, 'text.embed')).toBe(1);
    expect(emulator.stats().by_status['429'] ?? 0).toBe(0);

    // After the day window: the 7 deferred speeches are finished (5 today, --wait-daily for the last 2), with no new transcription or embedding.
    await emulator.clock.sleep(resetAt - emulator.clock.now() + 1000);
    const after = await nightly(dir, emulator, { waitDaily: true });
    expect(jobsOf(emulator, 'audio.speech')).toBe(12);
    expect(jobsOf(emulator, 'audio.transcribe')).toBe(12);
    expect(jobsOf(emulator, 'text.embed')).toBe(1);
    // Everything that could run is done; only the two bad files are left out: exit 6 (issue 27.3).
    expect(after.outcome.exitCode).toBe(6);
    expect(after.outcome.counts).toMatchObject({ invalid: 2, deferred: 0 });
    expect(emulator.jobs().every((j) => j.status === 'done')).toBe(true);
  }, 120_000);
});
