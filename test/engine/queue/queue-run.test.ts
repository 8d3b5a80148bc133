/**
 * Queue mode in one process: a coordinator and workers (each with its own Redis connections,
 * shared governor and client, as separate processes would have them) on one emulator over
 * loopback, and a private redis-server.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHAIN, clips } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { statusCount } from '../../client/support.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { coordinate, useWorker } from './queue-helpers.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const TIGHT = { rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 4, rpd: null }, 'audio/speech': { rpm: 4, rpd: null } }, jobs_status: null } };

describe('queue mode', () => {
  test('a coordinator and two workers run a chained workflow: every output once, no 429, nothing submitted twice', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(6) });
    const emulator = await useFastEmulator(TIGHT);
    await useWorker(redis.url, emulator);
    await useWorker(redis.url, emulator);
    const run = await coordinate(dir, redis.url, emulator);
    expect(run.outcome.status).toBe('done');
    expect(run.outcome.counts.done).toBe(12);
    expect(run.of('item-done')).toHaveLength(12);
    expect(run.of('item-submitted').length).toBeGreaterThanOrEqual(12);
    expect(statusCount(emulator, 429)).toBe(0);
    expect(emulator.stats().submissions).toBe(12);
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(Array.from({ length: 6 }, (_, k) => [`c${k}.mp3`, `c${k}.txt`]).flat().sort());
    expect((await readFile(join(dir, 'out', 'c0.txt'), 'utf8')).length).toBeGreaterThan(0);
  });
});
