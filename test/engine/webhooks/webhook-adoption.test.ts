import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clips, duplicateJobs, journalOf, runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { dropAnswers, freePort } from '../../helpers/webhook-receiver.js';
import { transcribeClips } from '../../fixtures/workflows.js';

const TRANSCRIBE = transcribeClips('adopt');

const hooks = async (): Promise<{ url: string; listen: string }> => {
  const port = await freePort();
  return { url: `http://127.0.0.1:${port}/hooks`, listen: `127.0.0.1:${port}` };
};

const emulatorConfig = { time_scale: 100, webhooks: { allow_http: true }, jobs: { duration_ms: 4000, scale_by_input: false } };

describe('adopting a submission whose answer was lost', () => {
  it('adopts the item in the same session from a signed delivery naming it: one job, polled, saved and charged once', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    const emulator = await useFastEmulator(emulatorConfig);
    await dropAnswers(emulator, 1);
    const run = await runDurablyIn(dir, emulator, { webhook: await hooks() });
    expect(emulator.stats().dropped_answers).toBe(1);
    expect(run.outcome).toMatchObject({ status: 'done', counts: { done: 3, unknown: 0 }, webhooks: { adopted: 1 } });
    expect(emulator.jobs()).toHaveLength(3);
    expect(duplicateJobs(emulator)).toEqual([]);
    const adopted = (await journalOf(dir)).filter((r) => r.t === 'submitted' && r.adopted === true);
    expect(adopted).toHaveLength(1);
    const jobs = emulator.jobs().map((j) => j.request_id);
    expect(jobs).toContain((adopted[0] as { request_id: string }).request_id);
    expect(run.of('item-submitted').filter((e) => e.adopted === true)).toHaveLength(1);
  });

  it('without webhooks the item stays unknown (as before): nothing can name its job', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    const emulator = await useFastEmulator(emulatorConfig);
    await dropAnswers(emulator, 1);
    const run = await runDurablyIn(dir, emulator);
    expect(run.outcome).toMatchObject({ status: 'failed', counts: { done: 2, unknown: 1 } });
    expect(emulator.jobs()).toHaveLength(3);
  });

  it('a later session at the same --webhook-url adopts an item an earlier one left unknown, from a retried delivery naming it', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    // Half of each job pending: the lost job's first delivery comes 200 ms (real) after its answer was lost; retried 2 s later.
    const emulator = await useFastEmulator({ ...emulatorConfig, time_scale: 10, webhooks: { allow_http: true, retry_schedule_s: [0, 20, 20, 20] }, jobs: { duration_ms: 4000, queue_share: 0.5, scale_by_input: false } });
    await dropAnswers(emulator, 1);
    const stable = await hooks();
    let stop: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => {
      stop = resolve;
    });
    // Session 1 stops (Ctrl-C, no drain) as soon as the answer is lost: its receiver is gone before any delivery.
    const first = await runDurablyIn(dir, emulator, { webhook: stable, adoptWaitMs: 0, interrupted, graceMs: 0, onEvent: (event) => event.type === 'item-unknown' && stop() });
    expect(first.outcome).toMatchObject({ status: 'interrupted', counts: { unknown: 1 }, webhooks: { adopted: 0 } });
    const second = await runDurablyIn(dir, emulator, { webhook: stable });
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true, counts: { done: 3, unknown: 0 }, webhooks: { adopted: 1 } });
    expect(emulator.jobs()).toHaveLength(3);
    expect(duplicateJobs(emulator)).toEqual([]);
    expect((await journalOf(dir)).filter((r) => r.t === 'submitted' && r.adopted === true)).toHaveLength(1);
  });

  it('a delivery kept after the session stopped waiting adopts the item when the run is next opened, with or without webhooks', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    // Half of each job is spent pending: the lost job's first delivery comes well after its answer was judged lost.
    const emulator = await useFastEmulator({ ...emulatorConfig, time_scale: 10, jobs: { duration_ms: 4000, queue_share: 0.5, scale_by_input: false } });
    await dropAnswers(emulator, 1);
    const first = await runDurablyIn(dir, emulator, { webhook: await hooks(), adoptWaitMs: 0 });
    expect(first.outcome).toMatchObject({ counts: { done: 2, unknown: 1 }, webhooks: { adopted: 0 } });
    const kept = (await readFile(join(dir, '.deflow', 'adoptions.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { request_id: string });
    const lost = emulator.jobs().map((j) => j.request_id).filter((id) => !first.of('item-submitted').some((e) => e.requestId === id));
    expect(lost).toHaveLength(1);
    expect(kept.map((k) => k.request_id)).toContain(lost[0]);
    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', counts: { done: 3, unknown: 0 } });
    expect((await journalOf(dir)).filter((r) => r.t === 'submitted' && r.adopted === true).map((r) => (r as { request_id: string }).request_id)).toEqual(lost);
    expect(emulator.jobs()).toHaveLength(3);
  });
});
