/**
 * `deflow worker --webhook-url`: a queue worker (a real redis-server) at the stable public URL
 * an earlier `deflow run` session gave its jobs keeps answering their deliveries after that
 * session ended: each verified with its run's secret, none failing at the service, and the one
 * naming an item whose submission answer was lost kept, so the next session adopts the item
 * (docs/distributed.md, docs/running.md "Adopted items").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runWorker } from '../../src/cli/actions/run/worker-action.js';
import type { WebhookStats } from '../../src/emulator/http/introspection.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { clips, duplicateJobs, journalOf, runDurablyIn } from '../engine/journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { skipWithout } from '../helpers/system-deps.js';
import { dropAnswers, webhookAddress } from '../helpers/webhook-receiver.js';
import { transcribeClips } from '../fixtures/workflows.js';

/** Skipped, saying so, where redis-server is not installed (failing instead in CI). */
const WITHOUT_REDIS = skipWithout('redis-server');

let redis: TestRedis;
beforeAll(async () => {
  if (!WITHOUT_REDIS) redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const TRANSCRIBE = transcribeClips('worker-hooks');

async function webhookStats(emulator: RunningEmulator): Promise<WebhookStats> {
  const res = await request(`${emulator.url}/_emulator/stats`);
  return ((await res.body.json()) as { webhooks: WebhookStats }).webhooks;
}

describe.skipIf(WITHOUT_REDIS)('deflow worker at a stable --webhook-url', () => {
  it("answers the deliveries of an ended session's jobs (0 fail) and keeps the one naming a lost answer, which the next session adopts", { timeout: 60_000 }, async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    // Time scale 10; jobs of 4 s, half of it pending; one attempt now and three retries 20 s apart (2 s real).
    const emulator = await useFastEmulator({ time_scale: 10, webhooks: { allow_http: true, retry_schedule_s: [0, 20, 20, 20] }, jobs: { duration_ms: 4000, queue_share: 0.5, scale_by_input: false } });
    await dropAnswers(emulator, 1);
    const hooks = await webhookAddress();
    let stop: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => {
      stop = resolve;
    });
    // The session ends (Ctrl-C, no drain) as soon as an answer is lost: its jobs are in flight, its receiver gone.
    const first = await runDurablyIn(dir, emulator, { webhook: hooks, adoptWaitMs: 0, interrupted, graceMs: 0, onEvent: (event) => event.type === 'item-unknown' && stop() });
    expect(first.outcome).toMatchObject({ status: 'interrupted', counts: { unknown: 1 } });

    const io = createFakeCliIO(dir);
    Object.assign(io.env, { DEAPI_API_KEY: emulator.keys.api, DEAPI_BASE_URL: emulator.url });
    const worker = runWorker({ queue: redis.url, webhookUrl: hooks.url, webhookListen: hooks.listen, stateDir: '.deflow' }, io);
    await vi.waitFor(() => expect(io.stderrText()).toContain(`deflow worker: answering webhook deliveries for earlier runs of ${join(dir, '.deflow')} at ${hooks.url}`), { timeout: 10_000 });
    // Every job ends at the service; their retried deliveries reach the worker.
    await vi.waitFor(async () => expect(emulator.jobs().every((j) => j.status === 'done') && (await webhookStats(emulator)).pending === 0).toBe(true), { timeout: 20_000, interval: 100 });
    io.interrupt();
    expect(await worker).toBe(0);
    const answered = Number(/; (\d+) webhook deliveries answered/.exec(io.stderrText())?.[1]);
    expect(answered).toBeGreaterThanOrEqual(3);
    const webhooks = await webhookStats(emulator);
    expect(webhooks).toMatchObject({ failed: 0, breaker_trips: 0, breaker_open: false });

    const submitted = new Set(first.of('item-submitted').map((e) => e.requestId));
    const lost = emulator.jobs().map((j) => j.request_id).filter((id) => !submitted.has(id));
    expect(lost).toHaveLength(1);
    const kept = (await readFile(join(dir, '.deflow', 'adoptions.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { run: string; request_id: string });
    expect(kept.filter((k) => k.request_id === lost[0])).toEqual([expect.objectContaining({ run: first.outcome.runId })]);

    // The next session, without webhooks, adopts the item from the kept delivery: one job per item.
    const second = await runDurablyIn(dir, emulator, { runId: first.outcome.runId });
    expect(second.outcome).toMatchObject({ status: 'done', counts: { done: 3, unknown: 0 } });
    expect((await journalOf(dir, first.outcome.runId)).filter((r) => r.t === 'submitted' && r.adopted === true).map((r) => (r as { request_id: string }).request_id)).toEqual(lost);
    expect(emulator.jobs()).toHaveLength(3);
    expect(duplicateJobs(emulator)).toEqual([]);
  });

  it('refuses --webhook-url without --webhook-listen and --state-dir, naming them', async () => {
    const io = createFakeCliIO();
    await expect(runWorker({ queue: 'redis://127.0.0.1:1', webhookUrl: 'https://hooks.example.com/deflow' }, io)).rejects.toThrow(
      '--webhook-url: expected --webhook-listen and --state-dir as well (the service calls the URL, the receiver listens at the address, and the state folder holds the runs whose deliveries it answers)',
    );
  });
});
