/**
 * Polls placed from each job's input: clips of 20-120 s transcribed on the emulator with
 * `scale_by_input: true` (a job lasts its base duration × seconds / 60), on a discrete-event
 * clock (virtual time stands still while anything is in progress, so the figures below are the
 * poller's alone, whatever the machine's load). A job is noticed when deflow starts fetching its
 * result (`item-downloading`); it ended at the emulator's `finished_at`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { createEventClock, type EventClock } from '../../helpers/event-clock.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { runIn, useWorkspace } from '../run-helpers.js';
import { transcribeClipsWorkflow } from '../../../bench/_bench-util.js';

const WORKFLOW = transcribeClipsWorkflow('clips');

/** Clip lengths (s): 20 to 120, shuffled so that file order is not length order (48 clips). */
const BASE = [75, 20, 120, 45, 95, 30, 110, 60, 25, 85, 40, 115, 55, 100, 35, 70];
const LENGTHS = [...BASE, ...BASE.map((s) => 140 - s), ...BASE.map((s, i) => BASE[(i + 5) % BASE.length]! + (s % 2))];

async function workspace(): Promise<string> {
  const files: Record<string, string | Buffer> = { 'workflow.yaml': WORKFLOW };
  LENGTHS.forEach((seconds, i) => {
    files[`clips/c${String(i).padStart(2, '0')}.mp3`] = makeMp3(seconds);
  });
  return useWorkspace(files);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One run of the clips in `dir` (its state folder kept between calls), status pool at `statusRpm` (null: unthrottled). */
async function runClips(dir: string, statusRpm: number | null, clock: EventClock = createEventClock()) {
  onTestFinished(() => clock.close());
  const emulator = await useEmulator({
    clock,
    config: {
      balance: 1_000_000,
      rate_limits: { generation: { rpm: 300, rpd: null }, jobs_status: statusRpm === null ? null : { rpm: statusRpm } },
      jobs: { durations: { 'audio/transcriptions': 60_000 }, jitter: 0.05, scale_by_input: true },
    },
  });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  onTestFinished(() => client.close());
  const run = await runIn(dir, emulator, { client, clock });
  expect(run.outcome.counts).toMatchObject({ done: LENGTHS.length, failed: 0 });
  const jobs = new Map(emulator.jobs().map((j) => [j.request_id, j]));
  const late = run.of('item-downloading').map((e) => e.ts - Date.parse(jobs.get(e.requestId)!.finished_at!));
  const stats = emulator.stats();
  // Polls that found a job in its first 30 %: the search's scouts (a fifth of the estimate).
  const early = run.of('item-progress').filter((e) => e.progress < 30).length;
  return { early, late, statusPerJob: stats.polls / LENGTHS.length, http429: stats.by_status['429'] ?? 0 };
}

describe('polls placed from each job\'s input size (scale_by_input)', () => {
  it('short jobs of inputs that differ widely are noticed within seconds, not held for the search (jobs of 0.1 s whatever the clip)', async () => {
    const dir = await workspace();
    const clock = createEventClock();
    onTestFinished(() => clock.close());
    const emulator = await useEmulator({
      clock,
      config: { balance: 1_000_000, rate_limits: { generation: { rpm: 300, rpd: null }, jobs_status: null }, jobs: { duration_ms: 100, jitter: 0, scale_by_input: false } },
    });
    const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
    onTestFinished(() => client.close());
    const run = await runIn(dir, emulator, { client, clock });
    expect(run.outcome.counts).toMatchObject({ done: LENGTHS.length, failed: 0 });
    const jobs = new Map(emulator.jobs().map((j) => [j.request_id, j]));
    const late = run.of('item-downloading').map((e) => e.ts - Date.parse(jobs.get(e.requestId)!.finished_at!));
    // Held for the search, the jobs started with the scouts waited out the poller's longest
    // delay (120 s) once the scouts came back done: the search never ended.
    expect(Math.max(...late)).toBeLessThanOrEqual(5000);
  });

  it('with the status pool unthrottled, notices a finished job within 2 s at the median and 5 s at the 90th percentile, for at most 4 status requests per job', async () => {
    const dir = await workspace();
    const { late, statusPerJob, http429 } = await runClips(dir, null);
    expect(quantile(late, 0.5)).toBeLessThanOrEqual(2000);
    expect(quantile(late, 0.9)).toBeLessThanOrEqual(5000);
    expect(statusPerJob).toBeLessThanOrEqual(4);
    expect(http429).toBe(0);
  });

  it('keeps the learned per-input duration in the state folder, so the next run places its first polls without scouts (one early poll at most: the status probe)', async () => {
    const dir = await workspace();
    const first = await runClips(dir, 60);
    const saved = JSON.parse(await readFile(join(dir, '.deflow', 'poll-rates.json'), 'utf8')) as { keys: { task: string; per_input: boolean; estimate_ms: number; unit_size: number }[] };
    const key = saved.keys.find((k) => k.task === 'audio.transcribe');
    // A second of work per second of audio, ± 5 % (the 85th percentile): the estimate is for a
    // clip of unit_size × 60 s.
    expect(key?.per_input).toBe(true);
    const msPerSecond = key!.estimate_ms / (key!.unit_size * 60);
    expect(msPerSecond).toBeGreaterThan(900);
    expect(msPerSecond).toBeLessThan(1200);
    const second = await runClips(dir, 60);
    expect(first.early).toBeGreaterThan(0);
    // No scouts (two or more early polls): only the status probe, one job's early poll that
    // tells whether the status pool is limited (status-probe.ts).
    expect(second.early).toBeLessThanOrEqual(1);
    expect(second.statusPerJob).toBeLessThanOrEqual(1.5);
    expect(second.http429).toBe(0);
  });

  it('with the status pool limited (60 a minute), spends at most 2 status requests per job and gets no 429', async () => {
    const dir = await workspace();
    const { statusPerJob, http429, late } = await runClips(dir, 60);
    expect(statusPerJob).toBeLessThanOrEqual(2);
    expect(http429).toBe(0);
    // A job's first poll goes out at its own predicted end, not at the longest clip's.
    expect(quantile(late, 0.5)).toBeLessThanOrEqual(10_000);
  });
});
