/**
 * A run that starts from the previous run's `poll-rates.json` sends no scouts, so nothing asks
 * the job-status pool anything until some job's first poll: the status probe (one job polls
 * early) tells whether the pool is limited, and the first polls planned meanwhile are re-planned
 * then. The benchmark's scaled pipeline (bench/_pipeline-scaled.ts: 60 clips of 20-120 s
 * transcribed then spoken, jobs whose duration grows with their input, status unthrottled) on a
 * discrete-event clock, twice in one state folder: last night's clips, then tonight's (other
 * files of about the same lengths). Before the probe, tonight's first transcripts were seen
 * 20-27 s after they ended: every first poll was planned as if status requests were scarce.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { createEventClock } from '../../helpers/event-clock.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { runIn, useWorkspace } from '../run-helpers.js';
import { prepareWorkspace } from '../../../bench/_pipeline-clients.js';
import { scaledEmulatorConfig } from '../../../bench/_pipeline-scaled.js';

async function night(dir: string, stateDir: string, seed: number) {
  const clock = createEventClock();
  onTestFinished(() => clock.close());
  const emulator = await useEmulator({ clock, config: scaledEmulatorConfig({ statusRpm: null, seed }) });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  onTestFinished(() => client.close());
  const run = await runIn(dir, emulator, { client, clock, file: 'pipeline.yaml', stateDir });
  expect(run.outcome.counts).toMatchObject({ done: 120, failed: 0 });
  const jobs = new Map(emulator.jobs().map((j) => [j.request_id, j]));
  const late = run.of('item-downloading').map((e) => e.ts - Date.parse(jobs.get(e.requestId)!.finished_at!)).sort((a, b) => a - b);
  return { late, statusPerJob: emulator.stats().polls / 120 };
}

describe('the status probe of a run that starts from earlier estimates', () => {
  it('tonight\'s run from last night\'s poll-rates.json notices its jobs as soon as last night\'s did: median ≤ 1 s, 90th percentile ≤ 2 s, ≤ 2.5 status requests a job', async () => {
    const root = await useWorkspace({});
    const stateDir = join(root, 'state');
    await prepareWorkspace(join(root, 'last-night'), 60, true, 0.5);
    await prepareWorkspace(join(root, 'tonight'), 60, true);
    await night(join(root, 'last-night'), stateDir, 101);
    const { late, statusPerJob } = await night(join(root, 'tonight'), stateDir, 1);
    expect(late[Math.floor(late.length / 2)]!).toBeLessThanOrEqual(1000);
    expect(late[Math.floor(late.length * 0.9)]!).toBeLessThanOrEqual(2000);
    expect(statusPerJob).toBeLessThanOrEqual(2.5);
  });
});
