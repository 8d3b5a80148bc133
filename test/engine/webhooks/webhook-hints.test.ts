import { createHmac, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createVirtualClock, systemClock } from '../../../src/common/clock.js';
import { JobWakeups, readRunWebhookSecret, startWebhookHints, type WebhookHints } from '../../../src/engine/webhooks/webhook-hints.js';
import { useWorkspace } from '../run-helpers.js';

const SECRET = 'a-run-secret-of-at-least-32-characters!';

async function useHints(): Promise<WebhookHints> {
  const hints = await startWebhookHints({ url: 'https://hooks.example.com/deflow', listen: '127.0.0.1:0', secret: SECRET, clock: systemClock });
  onTestFinished(() => hints.close());
  return hints;
}

/** Posts a delivery; `sign` changes what is signed (defaults: now, the right secret, the body as sent). */
async function deliver(
  hints: WebhookHints,
  data: Record<string, unknown>,
  options: { secret?: string; timestamp?: number; signature?: string; tamper?: boolean; deliveryId?: string; event?: string } = {},
): Promise<number> {
  const deliveryId = options.deliveryId ?? randomUUID();
  const body = JSON.stringify({ event: options.event ?? 'job.completed', delivery_id: deliveryId, timestamp: new Date().toISOString(), data });
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = options.signature ?? `sha256=${createHmac('sha256', options.secret ?? SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
  const sent = options.tamper ? body.replace('"done"', '"error"') : body;
  const res = await request(hints.receiver.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-deapi-signature': signature, 'x-deapi-timestamp': timestamp, 'x-deapi-delivery-id': deliveryId, 'x-deapi-event': 'job.completed' },
    body: sent,
  });
  await res.body.text();
  return res.statusCode;
}

const completed = (requestId: string) => ({ job_request_id: requestId, status: 'done', previous_status: 'processing', job_type: 'txt2img', result_url: 'https://results.example.com/x.png' });

describe('webhook hints', () => {
  it('cuts the poll wait of a job short when its job.completed delivery verifies', async () => {
    const hints = await useHints();
    const clock = createVirtualClock({ timeScale: 1 });
    const waiting = hints.wakeups.sleep('job-1', 60_000, clock);
    expect(await deliver(hints, completed('job-1'))).toBe(200);
    await waiting;
    expect(hints.wakeups.woken).toBe(1);
    expect(hints.received()).toBe(1);
  });

  it('ends the wait with the job\'s status from a verified delivery: done with its result_url, or error with the failure\'s fields', async () => {
    const hints = await useHints();
    const clock = createVirtualClock({ timeScale: 1 });
    const done = hints.wakeups.sleep('job-d', 60_000, clock);
    await deliver(hints, completed('job-d'));
    expect(await done).toMatchObject({ status: 'done', resultUrl: 'https://results.example.com/x.png', error: null });
    const failed = hints.wakeups.sleep('job-e', 60_000, clock);
    const failure = { job_request_id: 'job-e', status: 'error', previous_status: 'processing', job_type: 'txt2img', error_code: 'WORKER_TIMEOUT', error_message: 'Worker failed to respond', error_reason: 'TIMEOUT', retryable: true, refunded: true };
    await deliver(hints, failure, { event: 'job.failed' });
    expect(await failed).toMatchObject({ status: 'error', resultUrl: null, error: { code: 'WORKER_TIMEOUT', message: 'Worker failed to respond', reason: 'TIMEOUT', retryable: true, refunded: true } });
    // A done delivery without result_url says too little: it only wakes the poll (null), which asks the service.
    const bare = hints.wakeups.sleep('job-f', 60_000, clock);
    const { result_url: _url, ...noUrl } = completed('job-f');
    await deliver(hints, noUrl);
    expect(await bare).toBeNull();
    expect(hints.wakeups.delivered).toBe(2);
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp and an empty signature, and wakes nothing', async () => {
    const hints = await useHints();
    expect(await deliver(hints, completed('job-2'), { tamper: true })).toBe(401);
    expect(await deliver(hints, completed('job-2'), { secret: 'another-secret-that-is-long-enough-too' })).toBe(401);
    expect(await deliver(hints, completed('job-2'), { timestamp: Math.floor(Date.now() / 1000) - 301 })).toBe(401);
    expect(await deliver(hints, completed('job-2'), { signature: '' })).toBe(401);
    expect(hints.received()).toBe(0);
    await hints.wakeups.sleep('job-2', 50, systemClock);
    expect(hints.wakeups.woken).toBe(0);
  });

  it('acts once on a replayed delivery', async () => {
    const hints = await useHints();
    const deliveryId = randomUUID();
    expect(await deliver(hints, completed('job-3'), { deliveryId })).toBe(200);
    expect(await deliver(hints, completed('job-3'), { deliveryId })).toBe(200);
    expect(hints.received()).toBe(1);
  });

  it('does not wake a job for job.processing (nothing to fetch yet)', async () => {
    const hints = await useHints();
    expect(await deliver(hints, { job_request_id: 'job-4', status: 'processing', previous_status: 'pending' }, { event: 'job.processing' })).toBe(200);
    expect(hints.received()).toBe(1);
    await hints.wakeups.sleep('job-4', 30, systemClock);
    expect(hints.wakeups.woken).toBe(0);
  });

  it('remembers a hint that came while its job was not waiting, for its next wait', async () => {
    const wakeups = new JobWakeups();
    wakeups.wake('job-5');
    await wakeups.sleep('job-5', 3_600_000, systemClock);
    expect(wakeups.woken).toBe(1);
    const controller = new AbortController();
    const waiting = wakeups.sleep('job-5', 3_600_000, systemClock, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });

  it('keeps one secret per run, 43 characters, readable only by its owner', async () => {
    const dir = await useWorkspace({});
    const secret = readRunWebhookSecret(dir);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readRunWebhookSecret(dir)).toBe(secret);
    expect((await stat(join(dir, 'webhook-secret'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a --webhook-url that is not an http(s) URL', async () => {
    await expect(startWebhookHints({ url: 'ftp://example.com/x', listen: '127.0.0.1:0', secret: SECRET, clock: systemClock })).rejects.toMatchObject({ code: 'E_USAGE_WEBHOOK_URL' });
  });
});
