import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookStats } from '../../../src/emulator/http/introspection.js';
import { clips, runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { transcribeClips } from '../../fixtures/workflows.js';
import { freePort } from '../../helpers/webhook-receiver.js';

const TRANSCRIBE = transcribeClips('drain');

/** Jobs of 60 s (virtual, 0.6 s real); one delivery attempt each, so a failure counts at once. */
const CONFIG = { time_scale: 100, webhooks: { allow_http: true, retry_schedule_s: [0] }, jobs: { duration_ms: 60_000, scale_by_input: false } };

/** Runs 4 clips with webhooks, interrupted once all 4 are submitted, polled for `graceMs` after that. */
async function interruptedRun(graceMs: number) {
  const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(4) });
  const emulator = await useFastEmulator(CONFIG);
  const port = await freePort();
  let interrupt: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve;
  });
  let submitted = 0;
  const run = await runDurablyIn(dir, emulator, {
    webhook: { url: `http://127.0.0.1:${port}/hooks`, listen: `127.0.0.1:${port}` },
    interrupted,
    graceMs,
    onEvent: (event) => {
      if (event.type === 'item-submitted' && ++submitted === 4) interrupt();
    },
  });
  // Every job ends at the service whatever the session did; then its deliveries are settled.
  const stats = async (): Promise<WebhookStats> => {
    const res = await request(`${emulator.url}/_emulator/stats`);
    return ((await res.body.json()) as { webhooks: WebhookStats }).webhooks;
  };
  await vi.waitFor(async () => expect(emulator.jobs().every((j) => j.status === 'done') && (await stats()).pending === 0).toBe(true), { timeout: 10_000, interval: 50 });
  return { run, webhooks: await stats() };
}

describe('ending a session with jobs given its webhook URL', () => {
  it('with a drain (--drain) the session waits for those jobs: no delivery fails', async () => {
    const { run, webhooks } = await interruptedRun(Number.POSITIVE_INFINITY);
    expect(run.outcome.counts.done).toBe(4);
    expect(webhooks).toMatchObject({ failed: 0, consecutive_failures: 0, breaker_trips: 0 });
    expect(webhooks.delivered).toBe(8);
  });

  it('without one (15 s of polling after Ctrl-C) the jobs outlive the session and their deliveries fail', async () => {
    const { run, webhooks } = await interruptedRun(15_000);
    expect(run.outcome.counts.done).toBe(0);
    expect(webhooks.failed).toBeGreaterThanOrEqual(4);
    expect(webhooks.consecutive_failures).toBeGreaterThanOrEqual(4);
  });
});
