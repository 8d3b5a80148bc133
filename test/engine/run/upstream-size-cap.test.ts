/**
 * A chained result too large for the field it feeds is refused before the upload, with a coded
 * error naming the step and field: nothing is sent for the consumer, so nothing is paid for it
 * (the service would refuse the upload, or worse, take it). Here a WAV of speech (48 kHz, 8 bit:
 * 48,000 bytes a second; 7,000 characters at 15 a second make 467 s, 22.4 MB) feeds the
 * transcription's `source_file`, which takes at most 20 MB of audio (service-facts §2).
 */
import { describe, expect, it } from 'vitest';
import { runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const TEXT = 'word '.repeat(1400).trim(); // 6,999 characters

function chain(text: string): string {
  return yaml(
    'version: 1',
    'name: upstream-size',
    'steps:',
    '  speak:',
    '    task: audio.speech',
    `    with: { text: "${text}", model: Kokoro, voice: af_sky, lang: en-us, format: wav, sample_rate: 48000 }`,
    '  transcribe:',
    '    task: audio.transcribe',
    '    with: { source_file: "${{ steps.speak.result_url }}", model: WhisperLargeV3, include_ts: false }',
  );
}

describe('an upstream result over the consuming field’s size cap', () => {
  it('is refused before the upload (E_UPSTREAM_TOO_LARGE, located); the consumer is never submitted', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': chain(TEXT) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 1000, scale_by_input: false } });
    const run = await runDurablyIn(dir, emulator);
    const failed = run.of('item-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.node.step).toBe('transcribe');
    expect(failed[0]!.error.code).toBe('E_UPSTREAM_TOO_LARGE');
    expect(failed[0]!.error.message).toContain('steps.transcribe.with.source_file: expected a file of at most 20971520 bytes (20 MiB), got the audio result of job');
    expect(failed[0]!.error.message).toContain(', 22396844 bytes (21.4 MiB); nothing was sent for this item');
    expect(emulator.jobs().map((job) => job.task)).toEqual(['audio.speech']);
  });

  it('one under the cap goes through', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': chain('word '.repeat(100).trim()) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 1000, scale_by_input: false } });
    const run = await runDurablyIn(dir, emulator);
    expect(run.outcome.counts).toMatchObject({ done: 2, failed: 0 });
    expect(emulator.jobs().map((job) => job.task)).toEqual(['audio.speech', 'audio.transcribe']);
  });
});
