/**
 * A queue worker places its polls as a local run does: it measures each job's input (seconds of
 * audio read from the clip's header) and keeps what its jobs taught it of job durations in the
 * run's state folder (`poll-rates.json`), where the next run, local or queued, starts from it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { CHAIN } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { skipWithout } from '../../helpers/system-deps.js';
import { coordinate, useWorker } from './queue-helpers.js';

const WITHOUT_REDIS = skipWithout('redis-server');

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Clips of 20-120 s: the jobs' durations grow with them (`scale_by_input`). */
const LENGTHS = [120, 20, 95, 45, 70, 30, 110, 60];

describe.skipIf(WITHOUT_REDIS)('queue worker: input-scaled polls', () => {
  test('a worker measures each clip and leaves the per-input transcription rate in poll-rates.json when it closes', async () => {
    const files: Record<string, string | Buffer> = { 'workflow.yaml': CHAIN };
    LENGTHS.forEach((seconds, i) => {
      files[`clips/c${i}.mp3`] = makeMp3(seconds);
    });
    const dir = await useWorkspace(files);
    const emulator = await useFastEmulator({ jobs: { durations: { 'audio/transcriptions': 30_000, 'audio/speech': 10_000 }, jitter: 0.05, scale_by_input: true }, rate_limits: { jobs_status: null } });
    const worker = await useWorker(redis.url, emulator);
    const run = await coordinate(dir, redis.url, emulator);
    expect(run.outcome.status).toBe('done');
    await worker.close();
    const saved = JSON.parse(await readFile(join(dir, '.deflow', 'poll-rates.json'), 'utf8')) as { keys: { task: string; per_input: boolean; unit_size?: number; estimate_ms: number }[] };
    const transcribe = saved.keys.find((k) => k.task === 'audio.transcribe');
    // Per input: the worker read each clip's length; its reference size is a clip's, in minutes (input-measure.ts).
    expect(transcribe).toMatchObject({ per_input: true });
    expect(LENGTHS.some((s) => Math.abs(s / 60 - transcribe!.unit_size!) < 0.01), `unit size ${transcribe!.unit_size} min`).toBe(true);
    expect(transcribe!.estimate_ms).toBeGreaterThan(0);
  });
});
