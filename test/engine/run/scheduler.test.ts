import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { createEventClock } from '../../helpers/event-clock.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

/** Clips of different lengths (distinct requests), longest first: the longest-first order is file order. */
const clips = (n: number): Record<string, Buffer> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2 + n - i)]));

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
  it('submits a chained step\'s items as their upstream items finish, before later upstream items are even sent', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(4) });
    // A discrete-event clock: virtual time stands still while requests and file writes are out,
    // so the order below does not depend on the machine's load (it flaked on a scaled clock).
    const clock = createEventClock();
    onTestFinished(() => clock.close());
    // Two transcriptions per minute: items 0 and 1 go at 0 s and finish at 20 s; 2 and 3 wait
    // for the next window at 60 s.
    const emulator = await useEmulator({
      clock,
      config: {
        balance: 1000,
        rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 2 } } },
        jobs: { durations: { 'audio/transcriptions': 20_000, 'audio/speech': 5_000 }, scale_by_input: false },
      },
    });
    const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
    onTestFinished(() => client.close());
    const run = await runIn(dir, emulator, { client });
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    const submitted = (step: string, k: number) => run.of('item-submitted').find((e) => e.node.step === step && e.node.index === k)!.ts;
    const done = (step: string, k: number) => run.of('item-done').find((e) => e.node.step === step && e.node.index === k)!.ts;
    const t0 = submitted('transcribe', 0);
    expect(submitted('transcribe', 2) - t0).toBeGreaterThanOrEqual(60_000);
    for (const k of [0, 1]) {
      expect(submitted('speak', k)).toBeGreaterThanOrEqual(done('transcribe', k));
      expect(submitted('speak', k)).toBeLessThan(submitted('transcribe', 2));
      expect(done('speak', k)).toBeLessThan(done('transcribe', 2));
    }
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
