/**
 * The fault suite's case for webhooks (docs/running.md, "Ending a session with jobs in flight"):
 * 50 sessions of one run, each interrupted (Ctrl-C) with jobs in flight that were given the
 * run's stable webhook URL, every other one with a drain (`--drain`) and the others without,
 * 10 % of submission answers lost; then a last session resumes the run to its end. The
 * emulator's account breaker never opens (the retried deliveries of jobs an interrupted session
 * left reach the next one at the same URL), no job is paid twice, and every item whose answer
 * was lost is adopted.
 */
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookStats } from '../../../src/emulator/http/introspection.js';
import { clips, duplicateJobs, journalOf, runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { webhookAddress } from '../../helpers/webhook-receiver.js';
import { transcribeClips } from '../../fixtures/workflows.js';

const TRANSCRIBE = transcribeClips('sessions');

const SESSIONS = 50;
const ITEMS = 200;
/** Items each interrupted session starts (submitted, or their answer lost) before its Ctrl-C. */
const PER_SESSION = 2;

/**
 * Time scale 100: jobs of 30 s (0.3 s real); 10 % of answers lost; each delivery attempted at
 * once and retried after 5, 10, 20, 40 and 80 s (1.55 s real in all); the docs' breaker of 10.
 */
const CONFIG = {
  time_scale: 100,
  faults: { drop_answer_rate: 0.1 },
  webhooks: { allow_http: true, retry_schedule_s: [0, 5, 10, 20, 40, 80], breaker_threshold: 10 },
  jobs: { duration_ms: 30_000, scale_by_input: false },
  rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 6000, rpd: null } }, jobs_status: { rpm: 6000, rpd: null } },
};

describe('50 sessions interrupted with jobs in flight given the webhook URL, then resumed', () => {
  it('the breaker never opens, no job is paid twice, and every item whose answer was lost is adopted', { timeout: 240_000 }, async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(ITEMS) });
    const emulator = await useFastEmulator(CONFIG);
    const webhook = await webhookAddress();
    const seen = new Set<string>();
    let runId: string | undefined;
    let withJobsInFlight = 0;
    for (let session = 0; session < SESSIONS; session++) {
      let stop: () => void = () => {};
      const interrupted = new Promise<void>((resolve) => {
        stop = resolve;
      });
      let started = 0;
      const run = await runDurablyIn(dir, emulator, {
        webhook,
        interrupted,
        // Few jobs at a time, so that a Ctrl-C finds some in flight and most items left for later sessions.
        concurrency: 3,
        ...(runId === undefined ? {} : { runId }),
        // Every other session drains (--drain: until its jobs are done); the others stop polling at once.
        graceMs: session % 2 === 0 ? Number.POSITIVE_INFINITY : 0,
        onEvent: (event) => {
          const fresh = (event.type === 'item-submitted' && !seen.has(event.requestId)) || event.type === 'item-unknown';
          if (event.type === 'item-submitted') seen.add(event.requestId);
          if (fresh && ++started === PER_SESSION) stop();
        },
      });
      runId = run.outcome.runId;
      expect(run.outcome.status, `session ${session}`).toBe('interrupted');
      if (run.outcome.counts.running > 0) withJobsInFlight++;
    }
    const last = await runDurablyIn(dir, emulator, { webhook, runId: runId!, concurrency: 8 });
    expect(last.outcome).toMatchObject({ status: 'done', counts: { done: ITEMS, unknown: 0, failed: 0 } });

    // Every job ended at the service and its deliveries settled.
    const stats = async (): Promise<WebhookStats> => {
      const res = await request(`${emulator.url}/_emulator/stats`);
      return ((await res.body.json()) as { webhooks: WebhookStats }).webhooks;
    };
    await vi.waitFor(async () => expect(emulator.jobs().every((j) => j.status === 'done') && (await stats()).pending === 0).toBe(true), { timeout: 30_000, interval: 100 });
    const webhooks = await stats();
    const dropped = emulator.stats().dropped_answers;
    const adopted = (await journalOf(dir, runId)).filter((r) => r.t === 'submitted' && r.adopted === true);
    console.log(`sessions ${SESSIONS + 1}, ended without drain with jobs in flight: ${withJobsInFlight}; answers dropped ${dropped}, adopted ${adopted.length}; deliveries ${webhooks.delivered} delivered, ${webhooks.failed} failed, breaker trips ${webhooks.breaker_trips}`);

    expect(withJobsInFlight).toBeGreaterThanOrEqual(SESSIONS / 2 - 5);
    expect(webhooks).toMatchObject({ breaker_open: false, breaker_trips: 0 });
    expect(webhooks.consecutive_failures).toBeLessThan(10);
    expect(emulator.jobs()).toHaveLength(ITEMS);
    expect(duplicateJobs(emulator)).toEqual([]);
    expect(dropped).toBeGreaterThan(0);
    expect(new Set(adopted.map((r) => (r as { node: string }).node)).size).toBe(dropped);
  });
});
