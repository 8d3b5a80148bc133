/**
 * Queue mode in one process: a coordinator and workers (each with its own Redis connections,
 * shared governor and client, as separate processes would have them) on one emulator over
 * loopback, and a private redis-server.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMicros, toMicros } from '../../../src/common/money.js';
import { accountScope } from '../../../src/engine/queue/account-scope.js';
import { queueName } from '../../../src/engine/queue/queue-names.js';
import { CHAIN, clips, duplicateJobs } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { statusCount } from '../../client/support.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { useFaultProxy } from '../../helpers/fault-proxy.js';
import { coordinate, useWorker } from './queue-helpers.js';
import { skipWithout } from '../../helpers/system-deps.js';

/** Skipped, saying so, where redis-server is not installed (failing instead in CI). */
const WITHOUT_REDIS = skipWithout('redis-server');

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const TIGHT = { rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 4, rpd: null }, 'audio/speech': { rpm: 4, rpd: null } }, jobs_status: null } };

describe.skipIf(WITHOUT_REDIS)('queue mode', () => {
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

describe.skipIf(WITHOUT_REDIS)('queue mode: crashes and stops', () => {
  test('an intent without a request id (a worker lost mid-submission) is unknown, never submitted again but with --resubmit-unknown', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator(TIGHT);
    const scope = accountScope(emulator.url, emulator.keys.api);
    // What a worker killed between its intent and the POST's answer leaves behind.
    const queue = new Queue(queueName(scope, 'audio/transcriptions'), { connection: { path: redis.socket }, prefix: 'deflow' });
    await queue.add('transcribe', { v: 1, run: 'lost-worker', step: 'transcribe', k: 1, upstream: [], intent: { attempt: 1, digest: 'x', cacheKey: null } }, { jobId: 'lost-worker:transcribe:1' });
    await queue.close();
    await useWorker(redis.url, emulator);
    const run = await coordinate(dir, redis.url, emulator, { runId: 'lost-worker' });
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.counts).toMatchObject({ done: 4, unknown: 1, skipped: 1 });
    expect(run.of('item-unknown')[0]).toMatchObject({ node: { step: 'transcribe', index: 1 } });
    expect(run.of('item-unknown')[0]!.reason).toMatch(/intent recorded, no request id/);
    expect(emulator.stats().submissions).toBe(4);
    // Started again, the run keeps it unknown; with --resubmit-unknown it is submitted knowingly.
    const again = await coordinate(dir, redis.url, emulator, { runId: 'lost-worker' });
    expect(again.outcome.counts).toMatchObject({ done: 4, unknown: 1, skipped: 1 });
    expect(emulator.stats().submissions).toBe(4);
    const resubmitted = await coordinate(dir, redis.url, emulator, { runId: 'lost-worker', resubmitUnknown: true });
    expect(resubmitted.outcome.status).toBe('done');
    expect(resubmitted.outcome.counts.done).toBe(6);
    expect(emulator.stats().submissions).toBe(6);
  });

  test('an interrupted coordinator leaves its run in the queue; started again it finishes without resubmitting', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(6) });
    const emulator = await useFastEmulator(TIGHT);
    await useWorker(redis.url, emulator);
    let interrupt!: () => void;
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
    // No result cache: only the queue's state may keep the second session from paying again.
    const first = await coordinate(dir, redis.url, emulator, {
      useCache: false,
      interrupted,
      graceMs: 1,
      onEvent: (event) => {
        if (event.type === 'item-done') interrupt();
      },
    });
    expect(first.outcome.status).toBe('interrupted');
    expect(first.outcome.counts.done).toBeLessThan(12);
    const second = await coordinate(dir, redis.url, emulator, { useCache: false });
    expect(second.outcome.resumed).toBe(true);
    expect(second.outcome.runId).toBe(first.outcome.runId);
    expect(second.outcome.status).toBe('done');
    expect(second.outcome.counts.done).toBe(12);
    expect(emulator.stats().submissions).toBe(12);
    expect((await readdir(join(dir, 'out'))).length).toBe(12);
  });
  test('a worker whose download fails after payment leaves the item paid, not saved; started again, the run fetches it by its request id, never submits it again', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator(TIGHT);
    // The worker's downloads go through a proxy that cuts every one of them mid-body.
    const proxy = await useFaultProxy(emulator.url);
    proxy.plan = { fault: 'cut-mid-body', phase: 'download', seed: 1, rate: 1 };
    const cut = await useWorker(redis.url, emulator, { baseUrl: proxy.url });
    const first = await coordinate(dir, redis.url, emulator, { useCache: false });
    expect(proxy.hit.download).toBeGreaterThan(0);
    expect(first.outcome.status).toBe('failed');
    // The transcripts are paid for, their results cut: paid, not saved; their speech never starts.
    expect(first.outcome.counts).toMatchObject({ done: 0, failed: 2, unsaved: 2, skipped: 2 });
    const unsaved = first.of('item-failed');
    expect(unsaved.map((e) => [e.node.step, e.error.code, e.unsaved !== undefined, e.requestId !== null])).toEqual([
      ['transcribe', 'E_TRANSFER', true, true],
      ['transcribe', 'E_TRANSFER', true, true],
    ]);
    expect(unsaved[0]!.error.message).toContain('paid, not saved');
    expect(emulator.stats().submissions).toBe(2);
    await cut.close();

    await useWorker(redis.url, emulator);
    const second = await coordinate(dir, redis.url, emulator, { useCache: false });
    expect(second.outcome.resumed).toBe(true);
    expect(second.outcome.status).toBe('done');
    expect(second.outcome.counts.done).toBe(4);
    // The transcripts are fetched again by request id, not submitted: only the 2 speeches are new.
    expect(emulator.stats().submissions).toBe(4);
    expect(duplicateJobs(emulator)).toEqual([]);
    const refetched = second.of('item-done').filter((e) => e.node.step === 'transcribe');
    expect(refetched.map((e) => e.requestId).sort()).toEqual(unsaved.map((e) => e.requestId).sort());
    // Charged once, in the first session; the run's spend (as every session states it, the
    // transcripts paid then included) equals what the service charged, to the micro-dollar.
    expect(toMicros(first.outcome.spent)).toBe(addMicros(...emulator.jobs().filter((j) => j.task === 'audio.transcribe').map((j) => toMicros(j.price))));
    expect(toMicros(second.outcome.spent)).toBe(addMicros(...emulator.jobs().map((j) => toMicros(j.price))));
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['c0.mp3', 'c0.txt', 'c1.mp3', 'c1.txt']);
  });

  test('a coordinator started again runs the retryable failures of its run again, and nothing that ended', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN.replace('    save: "${{ item.stem }}.txt"', '    save: "${{ item.stem }}.txt"\n    retries: 0'), ...clips(3) });
    // Every job fails on the service (a retryable error) until the service recovers.
    const emulator = await useFastEmulator({ ...TIGHT, jobs: { fail_rate: 1 } });
    await useWorker(redis.url, emulator);
    const first = await coordinate(dir, redis.url, emulator, { useCache: false });
    expect(first.outcome.status).toBe('failed');
    expect(first.outcome.counts).toMatchObject({ done: 0, failed: 3, skipped: 3 });
    expect(emulator.stats().submissions).toBe(3);
    (emulator.config.jobs as { fail_rate: number }).fail_rate = 0;
    const second = await coordinate(dir, redis.url, emulator, { useCache: false });
    expect(second.outcome.resumed).toBe(true);
    expect(second.outcome.runId).toBe(first.outcome.runId);
    expect(second.outcome.status).toBe('done');
    expect(second.outcome.counts.done).toBe(6);
    // The 3 failed transcriptions again, then the 3 speeches: nothing else.
    expect(emulator.stats().submissions).toBe(9);
    expect((await readdir(join(dir, 'out'))).length).toBe(6);
  });
});
