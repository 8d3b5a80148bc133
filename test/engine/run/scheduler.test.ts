import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const clips = (n: number): Record<string, Buffer> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2 + i)]));

const CHAIN = yaml(
  'version: 1',
  'name: chain',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);

describe('scheduler', () => {
  it('submits item k of a chained step while item k+1 of its upstream step is still running', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(4) });
    // Two transcriptions per minute: items 2 and 3 wait for the next window while 0 and 1 finish.
    const emulator = await useFastEmulator({
      rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 2 } } },
      jobs: { durations: { 'audio/transcriptions': 20_000, 'audio/speech': 5_000 }, scale_by_input: false },
    });
    const run = await runIn(dir, emulator);
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    const submitted = (step: string, k: number) => run.of('item-submitted').find((e) => e.node.step === step && e.node.index === k)!.ts;
    const done = (step: string, k: number) => run.of('item-done').find((e) => e.node.step === step && e.node.index === k)!.ts;
    expect(submitted('speak', 0)).toBeLessThan(done('transcribe', 1 + 2));
    expect(submitted('speak', 1)).toBeLessThan(submitted('transcribe', 3));
    expect(run.outcome.counts).toMatchObject({ done: 8, failed: 0, skipped: 0, pending: 0 });
  });

  it('starts a gathering step only after every item it reads is done', async () => {
    const workflow = yaml(
      'version: 1',
      'name: gather',
      'steps:',
      '  transcribe:',
      '    task: audio.transcribe',
      '    for_each: { glob: "clips/*.mp3" }',
      '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
      '  embed:',
      '    task: text.embed',
      '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
      '  later:',
      '    task: audio.speech',
      '    needs: [transcribe]',
      '    with: { text: "all transcripts are in", model: Kokoro, voice: af_sky, lang: en-us }',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { durations: { 'audio/transcriptions': 10_000 }, jitter: 0.3, scale_by_input: false } });
    const run = await runIn(dir, emulator);
    expect(run.outcome.status).toBe('done');
    const lastTranscript = Math.max(...run.of('item-done').filter((e) => e.node.step === 'transcribe').map((e) => e.ts));
    for (const step of ['embed', 'later']) {
      const submitted = run.of('item-submitted').filter((e) => e.node.step === step);
      expect(submitted).toHaveLength(1);
      expect(submitted[0]!.ts).toBeGreaterThanOrEqual(lastTranscript);
    }
  });

  it('skips only the dependents of an item that failed, and finishes the rest', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(8) });
    const emulator = await useFastEmulator({ seed: 3, jobs: { fail_rate: 0.4, duration_ms: 3000, scale_by_input: false } });
    const run = await runIn(dir, emulator);
    const failed = run.of('item-failed').filter((e) => e.node.step === 'transcribe').map((e) => e.node.index);
    const transcribed = run.of('item-done').filter((e) => e.node.step === 'transcribe').map((e) => e.node.index);
    expect(failed.length).toBeGreaterThan(0);
    expect(transcribed.length).toBeGreaterThan(0);
    for (const k of failed) {
      const skipped = run.of('item-skipped').find((e) => e.node.step === 'speak' && e.node.index === k);
      expect(skipped?.reason).toBe(`steps.transcribe item ${k} failed`);
    }
    const spokenOrFailed = [...run.of('item-done'), ...run.of('item-failed')].filter((e) => e.node.step === 'speak').map((e) => e.node.index);
    expect(spokenOrFailed.sort()).toEqual(transcribed.sort());
    expect(run.outcome).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(run.outcome.counts.pending).toBe(0);
  });

  it('resubmits a job that failed with retryable: true, up to the step retries', async () => {
    const workflow = CHAIN.replace('  speak:', '    retries: 5\n  speak:').replace("lang: en-us }", 'lang: en-us }\n    retries: 5');
    const dir = await useWorkspace({ 'workflow.yaml': workflow, ...clips(4) });
    const emulator = await useFastEmulator({ seed: 5, jobs: { fail_rate: 0.3, duration_ms: 3000, scale_by_input: false } });
    const run = await runIn(dir, emulator);
    const retries = run.of('item-retry');
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]!.error).toMatchObject({ code: 'E_JOB_FAILED', jobErrorCode: 'WORKER_TIMEOUT', reason: 'TIMEOUT', retryable: true });
    expect(retries[0]!.attempt).toBe(2);
    // 0.3⁶ is small: with five resubmissions every item gets through.
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    expect(emulator.stats().submissions).toBe(8 + retries.length);
  });

  it('reports the service error of a job that fails with no retries left', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const emulator = await useFastEmulator({ jobs: { fail_rate: 1, duration_ms: 2000 } });
    const run = await runIn(dir, emulator);
    expect(run.of('item-failed')[0]!.error).toEqual({
      code: 'E_JOB_FAILED',
      message: expect.stringContaining('Worker failed to respond within the allowed time'),
      jobErrorCode: 'WORKER_TIMEOUT',
      reason: 'TIMEOUT',
      retryable: true,
    });
    expect(run.of('item-skipped')).toHaveLength(1);
  });

  it('skips an item whose if: is false, and its dependents', async () => {
    const workflow = CHAIN.replace('    for_each: { glob: "clips/*.mp3" }', '    for_each: { glob: "clips/*.mp3" }\n    if: ${{ item.stem != \'c1\' }}');
    const dir = await useWorkspace({ 'workflow.yaml': workflow, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runIn(dir, emulator);
    expect(run.of('item-skipped').map((e) => [e.node.step, e.node.index, e.reason])).toEqual([
      ['transcribe', 1, 'its if: condition is false'],
      ['speak', 1, 'steps.transcribe item 1 was skipped'],
    ]);
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    expect(emulator.stats().submissions).toBe(2);
  });

  it('keeps jobs in flight within --concurrency', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(6) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 5000, jitter: 0.5, scale_by_input: false } });
    const run = await runIn(dir, emulator, { concurrency: 2 });
    let inFlight = 0;
    let most = 0;
    for (const event of run.events) {
      if (event.type === 'item-submitted') most = Math.max(most, ++inFlight);
      if (event.type === 'item-done') inFlight--;
    }
    expect(most).toBe(2);
    expect(run.outcome.counts.done).toBe(12);
  });
});
