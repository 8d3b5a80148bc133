import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { startReceiver } from './webhook-receiver.js';

const SECRET = 'request-secret-0123456789abcdefghij';
const generation = { prompt: 'a red fox', model: 'Flux1schnell', width: 512, height: 512, steps: 4 };

function config(extra: Record<string, unknown> = {}) {
  return withKeys({
    time_scale: 1000,
    jobs: { duration_ms: 2000, queue_share: 0.1 },
    webhooks: { allow_http: true, retry_schedule_s: [0, 60, 120], ...extra },
  });
}

describe('webhooks from submitted jobs', () => {
  it('delivers job.processing then job.completed, signed with the request secret', async () => {
    const receiver = await startReceiver();
    const emu = await useEmulator({ config: config() });
    const submit = await call(emu, 'POST', '/api/v2/images/generations', {
      key: API_KEY,
      json: { ...generation, webhook_url: receiver.url, webhook_secret: SECRET },
    });
    const id = submit.body.data.request_id as string;
    await receiver.waitFor(2);
    const events = receiver.deliveries.map((d) => d.headers['x-deapi-event']).sort();
    expect(events).toEqual(['job.completed', 'job.processing']);
    for (const d of receiver.deliveries) {
      const ts = d.headers['x-deapi-timestamp'] as string;
      const expected = createHmac('sha256', SECRET).update(`${ts}.${d.body}`).digest('hex');
      expect(d.headers['x-deapi-signature']).toBe(`sha256=${expected}`);
    }
    const completed = JSON.parse(receiver.deliveries.find((d) => d.headers['x-deapi-event'] === 'job.completed')?.body ?? '{}');
    expect(completed.data).toMatchObject({ job_request_id: id, status: 'done', previous_status: 'processing', job_type: 'txt2img' });
    expect(completed.data.result_url).toMatch(/\/results\/.+\/result\.png\?expires=/);
    expect(Number.isInteger(completed.data.processing_time_ms)).toBe(true);
  });

  it('delivers unsigned, with an empty signature header, when there is no secret', async () => {
    const receiver = await startReceiver();
    const emu = await useEmulator({ config: config() });
    await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...generation, webhook_url: receiver.url } });
    await receiver.waitFor(2);
    expect(receiver.deliveries.map((d) => d.headers['x-deapi-signature'])).toEqual(['', '']);
  });

  it('signs with the account secret when the request has none', async () => {
    const receiver = await startReceiver();
    const account = 'account-secret-0123456789abcdefghij';
    const emu = await useEmulator({ config: config({ secret: account }) });
    await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...generation, webhook_url: receiver.url } });
    await receiver.waitFor(1);
    const d = receiver.deliveries[0];
    const expected = createHmac('sha256', account).update(`${d?.headers['x-deapi-timestamp']}.${d?.body}`).digest('hex');
    expect(d?.headers['x-deapi-signature']).toBe(`sha256=${expected}`);
  });

  it('retries a delivery the receiver answered 500', async () => {
    const receiver = await startReceiver([500, 500]);
    const emu = await useEmulator({ config: config() });
    await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...generation, webhook_url: receiver.url, webhook_secret: SECRET } });
    await receiver.waitFor(4);
    const byEvent = new Map<string, Set<string>>();
    for (const d of receiver.deliveries) {
      const event = d.headers['x-deapi-event'] as string;
      byEvent.set(event, (byEvent.get(event) ?? new Set()).add(d.headers['x-deapi-delivery-id'] as string));
    }
    // Two events, each with one delivery id however many attempts it took.
    expect([...byEvent.values()].map((ids) => ids.size)).toEqual([1, 1]);
  });

  it('reports a failed job with job.failed', async () => {
    const receiver = await startReceiver();
    const emu = await useEmulator({ config: withKeys({ time_scale: 1000, jobs: { duration_ms: 2000, fail_rate: 1 }, webhooks: { allow_http: true } }) });
    await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...generation, webhook_url: receiver.url } });
    await receiver.waitFor(2);
    const failed = JSON.parse(receiver.deliveries.find((d) => d.headers['x-deapi-event'] === 'job.failed')?.body ?? '{}');
    expect(failed.data).toMatchObject({
      status: 'error', previous_status: 'processing', error_code: 'WORKER_TIMEOUT', error_reason: 'TIMEOUT', retryable: true, refunded: true,
    });
  });
});
