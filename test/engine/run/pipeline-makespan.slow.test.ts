/**
 * The transcribe → speak pipeline on the emulator's Premium tier (300 per minute on every pool,
 * job status included), jobs of 30 s and 10 s ± 30 %, on a discrete-event clock: virtual time
 * stands still while anything is in progress, so the makespan and the status requests below are
 * the scheduler's and the poller's alone, whatever the machine's load.
 *
 * Bounds (virtual ms): the longest item's chain (its transcription's duration plus its speech's,
 * from the emulator's job list), and with one status request per job, (⌈2N/300⌉ − 1) × 60 s.
 */
import { link, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { createEventClock } from '../../helpers/event-clock.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { runIn, useWorkspace } from '../run-helpers.js';
import { transcribeThenSpeakWorkflow } from '../../../bench/_bench-util.js';

const PIPELINE = transcribeThenSpeakWorkflow('pipeline');

async function runPipeline(n: number) {
  const dir = await useWorkspace({ 'workflow.yaml': PIPELINE, 'clip.mp3': makeMp3(3) });
  await mkdir(join(dir, 'clips'));
  for (let i = 0; i < n; i++) await link(join(dir, 'clip.mp3'), join(dir, 'clips', `c${String(i).padStart(4, '0')}.mp3`));
  const clock = createEventClock();
  onTestFinished(() => clock.close());
  const emulator = await useEmulator({
    clock,
    config: { tier: 'premium', balance: 1_000_000, jobs: { durations: { 'audio/transcriptions': 30_000, 'audio/speech': 10_000 }, jitter: 0.3, scale_by_input: false } },
  });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  onTestFinished(() => client.close());
  const run = await runIn(dir, emulator, { client, clock });
  expect(run.outcome.counts).toMatchObject({ done: 2 * n, failed: 0 });
  const jobs = new Map(emulator.jobs().map((j) => [j.request_id, j]));
  const duration = (requestId: string): number => {
    const job = jobs.get(requestId)!;
    return Date.parse(job.finished_at!) - Date.parse(job.created_at);
  };
  const submitted = run.of('item-submitted');
  let chain = 0;
  for (let k = 0; k < n; k++) {
    const of = (step: string) => submitted.find((e) => e.node.step === step && e.node.index === k)!.requestId;
    chain = Math.max(chain, duration(of('transcribe')) + duration(of('speak')));
  }
  const makespan = run.of('run-finished')[0]!.ts - run.of('run-started')[0]!.ts;
  const stats = emulator.stats();
  return { makespan, chain, statusPerJob: stats.polls / (2 * n), http429: stats.by_status['429'] ?? 0 };
}

describe('pipeline makespan on the Premium tier (discrete-event clock)', () => {
  it('60 items finish within 1.10 × the longest item\'s chain, with at most 1.3 status requests per job and no 429', async () => {
    const { makespan, chain, statusPerJob, http429 } = await runPipeline(60);
    expect(makespan / chain).toBeLessThanOrEqual(1.1);
    expect(statusPerJob).toBeLessThanOrEqual(1.3);
    expect(http429).toBe(0);
  });

  it('200 items finish within 1.10 × the status bound of one request per job (one 60 s window), with at most 1.15 status requests per job and no 429', async () => {
    const { makespan, statusPerJob, http429 } = await runPipeline(200);
    const statusBound = (Math.ceil(400 / 300) - 1) * 60_000;
    expect(makespan / statusBound).toBeLessThanOrEqual(1.1);
    expect(statusPerJob).toBeLessThanOrEqual(1.15);
    expect(http429).toBe(0);
  });
});
