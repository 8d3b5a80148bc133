/**
 * A session with webhooks that stops for its budget or a daily limit while jobs given its URL
 * are in flight: it says how many deliveries would fail and keeps its receiver up until their
 * final deliveries came (docs/running.md, "Ending a session with jobs in flight"). The
 * emulator's deliveries come 300 s (virtual) after each change, so the session's polls see its
 * jobs done before their final delivery: without the drain every delivery fails.
 */
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookStats } from '../../../src/emulator/http/introspection.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import { clips, runDurablyIn } from '../journal/durable-helpers.js';
import { clientFor, useFastEmulator, useWorkspace } from '../run-helpers.js';
import { webhookAddress } from '../../helpers/webhook-receiver.js';
import { transcribeClips } from '../../fixtures/workflows.js';

const TRANSCRIBE = transcribeClips('stop-drain');

/** Jobs of 4 s; each delivery made once, 300 s after its change (all virtual; time scale 100). */
const CONFIG = { time_scale: 100, webhooks: { allow_http: true, retry_schedule_s: [300] }, jobs: { duration_ms: 4000, scale_by_input: false } };

/** Waits until every job ended at the service and its deliveries settled; the emulator's webhook figures. */
async function settled(emulator: RunningEmulator): Promise<WebhookStats> {
  const stats = async (): Promise<WebhookStats> => {
    const res = await request(`${emulator.url}/_emulator/stats`);
    return ((await res.body.json()) as { webhooks: WebhookStats }).webhooks;
  };
  await vi.waitFor(async () => expect(emulator.jobs().every((j) => j.status === 'done') && (await stats()).pending === 0).toBe(true), { timeout: 20_000, interval: 50 });
  return stats();
}

describe('a session stopped by its budget or a daily limit with jobs given its webhook URL', () => {
  it('a budget stop says how many deliveries would fail and waits for them: 0 failed', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(5) });
    const emulator = await useFastEmulator(CONFIG);
    const client = clientFor(emulator);
    const price = await client.price('audio.transcribe', { source_file: { path: `${dir}/clips/c0.mp3` }, model: 'WhisperLargeV3', include_ts: false, return_result_in_response: true });
    const notices: string[] = [];
    // No quote: each job is priced before it is sent, and the third does not fit the cap.
    const run = await runDurablyIn(dir, emulator, { client, maxCost: price * 2.5, webhook: await webhookAddress(), graceMs: 600_000, onNotice: (m) => notices.push(m) });
    expect(run.outcome).toMatchObject({ status: 'over-budget', counts: { done: 2 } });
    expect(notices).toContainEqual(expect.stringMatching(/^the budget stopped it with 2 jobs given this session's webhook URL have not had their final delivery yet: up to 4 deliveries would fail/));
    expect(notices.filter((n) => /still had no final delivery/.test(n))).toEqual([]);
    const webhooks = await settled(emulator);
    expect(emulator.jobs()).toHaveLength(2);
    expect(webhooks).toMatchObject({ delivered: 4, failed: 0, consecutive_failures: 0, breaker_trips: 0 });
  });

  it('a daily deferral says how many deliveries would fail and waits for them: 0 failed', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(4) });
    const emulator = await useFastEmulator({ ...CONFIG, rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 60, rpd: 2 } } } });
    const notices: string[] = [];
    const run = await runDurablyIn(dir, emulator, { webhook: await webhookAddress(), graceMs: 600_000, onNotice: (m) => notices.push(m) });
    expect(run.outcome).toMatchObject({ status: 'daily-limit', counts: { done: 2 } });
    expect(run.of('item-deferred')).toHaveLength(2);
    expect(notices).toContainEqual(expect.stringMatching(/^a daily limit stopped it with 2 jobs given this session's webhook URL have not had their final delivery yet: up to 4 deliveries would fail/));
    const webhooks = await settled(emulator);
    expect(webhooks).toMatchObject({ delivered: 4, failed: 0, consecutive_failures: 0, breaker_trips: 0 });
  });

  it('Ctrl-C with --drain alone polls the jobs to their end and then waits for their final deliveries: 0 failed', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    const emulator = await useFastEmulator(CONFIG);
    let interrupt: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => {
      interrupt = resolve;
    });
    let submitted = 0;
    const run = await runDurablyIn(dir, emulator, {
      webhook: await webhookAddress(),
      interrupted,
      graceMs: Number.POSITIVE_INFINITY,
      onEvent: (event) => {
        if (event.type === 'item-submitted' && ++submitted === 3) interrupt();
      },
    });
    expect(run.outcome).toMatchObject({ status: 'interrupted', counts: { done: 3 } });
    const webhooks = await settled(emulator);
    expect(webhooks).toMatchObject({ delivered: 6, failed: 0, breaker_trips: 0 });
  });

  it('a drain cut short (graceMs 0) says how many are left, and their deliveries fail', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(4) });
    const emulator = await useFastEmulator({ ...CONFIG, rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 60, rpd: 2 } } } });
    const notices: string[] = [];
    const run = await runDurablyIn(dir, emulator, { webhook: await webhookAddress(), graceMs: 0, onNotice: (m) => notices.push(m) });
    expect(run.outcome).toMatchObject({ status: 'daily-limit' });
    expect(notices).toContain("2 jobs given this session's webhook URL still had no final delivery when it ended: their deliveries fail until a session answers at the same --webhook-url");
    const webhooks = await settled(emulator);
    // Each job's processing and final delivery, as the notice counted (up to 4).
    expect(webhooks.failed).toBe(4);
  });
});
