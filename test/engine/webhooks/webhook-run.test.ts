import { createHmac, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import { clips, runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { transcribeClips } from '../../fixtures/workflows.js';
import { freePort } from '../../helpers/webhook-receiver.js';

const TRANSCRIBE = transcribeClips('hooks');

/** A port nobody listens on now (the receiver listens there next). */

interface Forgery {
  readonly secret: string;
  readonly requestId: string;
  readonly timestamp?: number;
  readonly signature?: string;
  readonly tamper?: boolean;
  readonly deliveryId?: string;
}

/** Posts a job.completed delivery for `requestId` to the run's receiver. */
async function post(url: string, forgery: Forgery): Promise<number> {
  const deliveryId = forgery.deliveryId ?? randomUUID();
  const body = JSON.stringify({
    event: 'job.completed',
    delivery_id: deliveryId,
    timestamp: new Date().toISOString(),
    data: { job_request_id: forgery.requestId, status: 'done', previous_status: 'processing', job_type: 'video2text', result_url: 'https://results.example.com/x.txt' },
  });
  const timestamp = String(forgery.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = forgery.signature ?? `sha256=${createHmac('sha256', forgery.secret).update(`${timestamp}.${body}`).digest('hex')}`;
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-deapi-signature': signature, 'x-deapi-timestamp': timestamp, 'x-deapi-delivery-id': deliveryId },
    body: forgery.tamper ? body.replace('"done"', '"error"') : body,
  });
  await res.body.text();
  return res.statusCode;
}

const statusOf = (emulator: RunningEmulator, requestId: string) => emulator.jobs().find((j) => j.request_id === requestId)?.status;

describe('webhooks through a run', () => {
  it('signs submissions with a per-run secret and refuses forged deliveries: they finish nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(2) });
    const emulator = await useFastEmulator({ time_scale: 100, webhooks: { allow_http: true }, jobs: { duration_ms: 120_000, scale_by_input: false } });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks`;
    let runDir = '';
    let checks: Promise<void> | undefined;
    const verdicts: Record<string, number> = {};
    const doneEarly: string[] = [];
    const doneIds: (string | null)[] = [];
    const run = await runDurablyIn(dir, emulator, {
      webhook: { url, listen: `127.0.0.1:${port}` },
      onOpened: (opened) => {
        runDir = opened.paths.dir;
      },
      onEvent: (event) => {
        if (event.type === 'item-done') doneIds.push(event.requestId);
        if (event.type !== 'item-submitted' || checks !== undefined) return;
        const requestId = event.requestId;
        checks = (async () => {
          const secret = (await readFile(join(runDir, 'webhook-secret'), 'utf8')).trim();
          verdicts['tampered body'] = await post(url, { secret, requestId, tamper: true });
          verdicts['wrong secret'] = await post(url, { secret: 'not-the-run-secret-but-long-enough-to-pass', requestId });
          verdicts['stale timestamp'] = await post(url, { secret, requestId, timestamp: Math.floor(Date.now() / 1000) - 301 });
          verdicts['empty signature'] = await post(url, { secret, requestId, signature: '' });
          await new Promise((resolve) => setTimeout(resolve, 100));
          if (statusOf(emulator, requestId) !== 'done' && doneIds.includes(requestId)) doneEarly.push(requestId);
        })();
      },
    });
    await checks;
    expect(verdicts).toEqual({ 'tampered body': 401, 'wrong secret': 401, 'stale timestamp': 401, 'empty signature': 401 });
    expect(doneEarly).toEqual([]);
    expect(run.outcome.status).toBe('done');
    // The emulator's own deliveries (processing, completed) for 2 jobs; the forgeries are not counted.
    expect(run.outcome.webhooks?.received).toBe(4);
    expect(run.of('item-done').every((e) => e.requestId !== null)).toBe(true);
  });

  it('takes a verified job.completed delivery as the job\'s status: the run spends no status request on jobs whose deliveries arrive', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    const emulator = await useFastEmulator({ time_scale: 100, webhooks: { allow_http: true }, jobs: { duration_ms: 4000, jitter: 0.3, scale_by_input: false } });
    const port = await freePort();
    const run = await runDurablyIn(dir, emulator, { webhook: { url: `http://127.0.0.1:${port}/hooks`, listen: `127.0.0.1:${port}` } });
    expect(run.outcome).toMatchObject({ status: 'done', counts: { done: 3 }, webhooks: { delivered: 3 } });
    expect(emulator.stats().polls).toBe(0);
    // The transcripts were read from each delivery's result_url.
    const texts = run.of('item-done').map((e) => e.requestId);
    expect(new Set(texts).size).toBe(3);
  });

  it('a URL that does not reach the receiver fails the start-up self-check: the session polls, says so, and gives no job that URL', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(2) });
    const emulator = await useFastEmulator({ webhooks: { allow_http: true, retry_schedule_s: [0] }, jobs: { duration_ms: 5000 } });
    // The public URL leads to a port where nothing listens (a tunnel that is down).
    const [lost, listen] = [await freePort(), await freePort()];
    const notices: string[] = [];
    const run = await runDurablyIn(dir, emulator, { webhook: { url: `http://127.0.0.1:${lost}/hooks`, listen: `127.0.0.1:${listen}` }, onNotice: (m) => notices.push(m) });
    expect(run.outcome).toMatchObject({ status: 'done', counts: { done: 2 }, webhooks: null });
    expect(notices).toEqual([expect.stringMatching(/^--webhook-url http:\/\/127\.0\.0\.1:\d+\/hooks: a signed test delivery did not reach the receiver at 127\.0\.0\.1:\d+ \(the URL could not be reached \(ECONNREFUSED\)\); this session polls instead/)]);
    // No delivery was ever attempted: no job was given the URL.
    const stats = (await (await request(`${emulator.url}/_emulator/stats`)).body.json()) as { webhooks: { delivered: number; failed: number; pending: number } };
    expect(stats.webhooks).toMatchObject({ delivered: 0, failed: 0, pending: 0 });
  });
});
