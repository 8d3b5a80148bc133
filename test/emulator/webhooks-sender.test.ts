import { createHmac } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createVirtualClock } from '../../src/common/clock.js';
import type { EmulatorJob, WebhooksConfig } from '../../src/emulator/types.js';
import { serialiseWebhookBody } from '../../src/emulator/webhooks/webhook-payload.js';
import { WebhookSender } from '../../src/emulator/webhooks/webhook-sender.js';
import { startReceiver } from './webhook-receiver.js';

const SECRET = 'per-request-secret-0123456789abcdef';
const CONFIG: WebhooksConfig = { secret: null, allow_http: true, retry_schedule_s: [0, 60, 120], timeout_ms: 5000, breaker_threshold: 10, breaker_stops_per_request: false };

function sender(config: Partial<WebhooksConfig> = {}): WebhookSender {
  const clock = createVirtualClock({ timeScale: 100_000, startMs: Date.UTC(2026, 7, 7, 11, 43, 14) });
  const s = new WebhookSender({ clock, baseUrl: () => 'http://127.0.0.1:1', random: () => 0.5 }, { ...CONFIG, ...config });
  onTestFinished(() => s.close());
  return s;
}

const job: EmulatorJob = {
  requestId: '0b7c5d1e-6a4b-4a43-9f2c-1c2d3e4f5a6b', taskId: 'image.generate', endpointPath: '/api/v2/images/generations',
  model: 'Flux1schnell', status: 'done', progress: 100, createdAt: Date.UTC(2026, 7, 7, 11, 43, 0),
  startedAt: Date.UTC(2026, 7, 7, 11, 43, 2), finishedAt: Date.UTC(2026, 7, 7, 11, 43, 14), priceMicros: 1360, keyId: 1,
  paramsDigest: 'x', error: null,
};

describe('webhook deliveries', () => {
  it('posts the completed event with the documented headers and a valid signature', async () => {
    const receiver = await startReceiver();
    sender().notify(job, 'job.completed', receiver.url, SECRET, { jobType: 'txt2img', resultUrl: 'https://h/results/x/result.png?a=1' });
    await receiver.waitFor(1);
    const [delivery] = receiver.deliveries;
    const h = delivery?.headers ?? {};
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toBe('DeAPI-Webhook/1.0');
    expect(h['x-deapi-event']).toBe('job.completed');
    expect(h['x-deapi-delivery-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(h['x-deapi-timestamp']).toMatch(/^\d{10}$/);
    const expected = createHmac('sha256', SECRET).update(`${h['x-deapi-timestamp']}.${delivery?.body}`).digest('hex');
    expect(h['x-deapi-signature']).toBe(`sha256=${expected}`);
    expect(delivery?.body).toContain('"result_url":"https:\\/\\/h\\/results\\/x\\/result.png?a=1"');
    const body = JSON.parse(delivery?.body ?? '{}');
    expect(body).toEqual({
      event: 'job.completed',
      delivery_id: h['x-deapi-delivery-id'],
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      data: {
        job_request_id: job.requestId, status: 'done', previous_status: 'processing', job_type: 'txt2img',
        completed_at: '2026-08-07T11:43:14+00:00', result_url: 'https://h/results/x/result.png?a=1', processing_time_ms: 12000,
      },
    });
  });

  it('signs with the account secret when the request has none, and sends an empty signature with no secret', async () => {
    const receiver = await startReceiver();
    sender({ secret: 'account-secret-0123456789abcdefgh' }).notify(job, 'job.processing', receiver.url, null, { jobType: 'txt2img', resultUrl: null });
    sender().notify(job, 'job.processing', receiver.url, null, { jobType: 'txt2img', resultUrl: null });
    await receiver.waitFor(2);
    const signed = receiver.deliveries.find((d) => d.headers['x-deapi-signature'] !== '');
    const unsigned = receiver.deliveries.find((d) => d.headers['x-deapi-signature'] === '');
    const expected = createHmac('sha256', 'account-secret-0123456789abcdefgh').update(`${signed?.headers['x-deapi-timestamp']}.${signed?.body}`).digest('hex');
    expect(signed?.headers['x-deapi-signature']).toBe(`sha256=${expected}`);
    expect(unsigned).toBeDefined();
    expect(JSON.parse(unsigned?.body ?? '{}').data).toEqual({
      job_request_id: job.requestId, status: 'processing', previous_status: 'pending', job_type: 'txt2img', started_at: '2026-08-07T11:43:02+00:00',
    });
  });

  it('retries after a 500 and a 302 with the same delivery id, then stops at the first 2xx', async () => {
    const receiver = await startReceiver([500, 302, 200]);
    const s = sender();
    s.notify(job, 'job.completed', receiver.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await receiver.waitFor(3);
    const ids = new Set(receiver.deliveries.map((d) => d.headers['x-deapi-delivery-id']));
    expect(ids.size).toBe(1);
    expect(new Set(receiver.deliveries.map((d) => d.body)).size).toBe(1);
    const stamps = receiver.deliveries.map((d) => Number(d.headers['x-deapi-timestamp']));
    expect((stamps[1] ?? 0) - (stamps[0] ?? 0)).toBeGreaterThanOrEqual(59);
    await expect.poll(() => s.stats()).toMatchObject({ delivered: 1, failed: 0, pending: 0 });
  });

  it('gives up after the last attempt of the schedule', async () => {
    const receiver = await startReceiver([500, 500, 500, 500]);
    const s = sender();
    s.notify(job, 'job.failed', receiver.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ delivered: 0, failed: 1, pending: 0, consecutive_failures: 1, breaker_open: false });
    expect(receiver.deliveries).toHaveLength(3);
  });

  it("10 deliveries failed in a row switch the account's webhooks off (the docs' breaker); a 2xx resets the count", async () => {
    const dead = await startReceiver(Array.from({ length: 40 }, () => 500));
    const s = sender({ retry_schedule_s: [0] });
    for (let i = 0; i < 9; i++) s.notify(job, 'job.completed', dead.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ failed: 9, pending: 0, consecutive_failures: 9, breaker_open: false });
    const alive = await startReceiver();
    s.notify(job, 'job.completed', alive.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ delivered: 1, consecutive_failures: 0, breaker_open: false });
    for (let i = 0; i < 10; i++) s.notify(job, 'job.completed', dead.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ failed: 19, pending: 0, consecutive_failures: 10, breaker_open: true, breaker_trips: 1 });
    // Per-request URLs are still delivered while it is open (the public docs), and enable() closes it.
    s.notify(job, 'job.completed', alive.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ delivered: 2, suppressed: 0 });
    s.enable();
    expect(s.stats()).toMatchObject({ consecutive_failures: 0, breaker_open: false, breaker_trips: 1 });
  });

  it('an open breaker stops per-request deliveries too when breaker_stops_per_request', async () => {
    const dead = await startReceiver(Array.from({ length: 10 }, () => 500));
    const s = sender({ retry_schedule_s: [0], breaker_threshold: 2, breaker_stops_per_request: true });
    for (let i = 0; i < 2; i++) s.notify(job, 'job.completed', dead.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    await expect.poll(() => s.stats()).toMatchObject({ failed: 2, breaker_open: true });
    const alive = await startReceiver();
    s.notify(job, 'job.completed', alive.url, SECRET, { jobType: 'txt2img', resultUrl: null });
    expect(s.stats()).toMatchObject({ suppressed: 1, delivered: 0 });
    expect(alive.deliveries).toHaveLength(0);
  });

  it('escapes slashes like PHP json_encode', () => {
    expect(serialiseWebhookBody({ u: 'https://a/b' })).toBe('{"u":"https:\\/\\/a\\/b"}');
  });
});
