import { createHmac, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/common/clock.js';
import { startWebhookReceiver, type WebhookHint, type WebhookReceiver } from '../../../src/engine/webhooks/webhook-receiver.js';

const secret = 'whsec_0123456789abcdef0123456789abcdef';
const nowS = 1_790_000_000;
const clock: Clock = { now: () => nowS * 1000, sleep: async () => {}, realPerVirtual: 1 };

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function start(options: { maxRemembered?: number } = {}): Promise<WebhookHint[]> {
  const hints: WebhookHint[] = [];
  receiver = await startWebhookReceiver({ listen: '127.0.0.1:0', secret, clock, onHint: (hint) => hints.push(hint), ...options });
  return hints;
}

function delivery(requestId: string, deliveryId: string = randomUUID(), status = 'done'): { body: string; headers: Record<string, string> } {
  const event = status === 'done' ? 'job.completed' : 'job.processing';
  const data: Record<string, unknown> = { job_request_id: requestId, status, previous_status: 'processing', job_type: 'txt2img' };
  if (status === 'done') data['result_url'] = 'https://results.deapi.ai/1/a.png?X-Amz-Signature=abc';
  const body = JSON.stringify({ event, delivery_id: deliveryId, timestamp: '2026-08-07T11:43:14+00:00', data });
  const signature = `sha256=${createHmac('sha256', secret).update(`${nowS}.${body}`).digest('hex')}`;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'DeAPI-Webhook/1.0',
      'x-deapi-signature': signature,
      'x-deapi-timestamp': String(nowS),
      'x-deapi-event': event,
      'x-deapi-delivery-id': deliveryId,
    },
  };
}

async function post(d: { body: string; headers: Record<string, string> }): Promise<{ status: number; body: unknown }> {
  const res = await fetch(receiver!.url, { method: 'POST', headers: d.headers, body: d.body });
  return { status: res.status, body: await res.json() };
}

describe('webhook receiver (loopback HTTP)', () => {
  it('answers 200 to a verified delivery and passes a hint on', async () => {
    const hints = await start();
    expect(receiver!.url).toBe(`http://127.0.0.1:${receiver!.port}/`);
    const d = delivery('req-1', 'del-1');
    expect(await post(d)).toEqual({ status: 200, body: { ok: true } });
    expect(hints).toEqual([
      {
        requestId: 'req-1',
        event: 'job.completed',
        status: 'done',
        resultUrl: 'https://results.deapi.ai/1/a.png?X-Amz-Signature=abc',
        deliveryId: 'del-1',
        signed: true,
        correlation: null,
        data: expect.objectContaining({ job_request_id: 'req-1', status: 'done' }),
      },
    ]);
  });

  it('answers 200 to a replayed delivery id without a second hint', async () => {
    const hints = await start();
    const d = delivery('req-1', 'del-1');
    expect((await post(d)).status).toBe(200);
    expect((await post(d)).status).toBe(200);
    expect((await post(d)).status).toBe(200);
    expect(hints).toHaveLength(1);
    expect((await post(delivery('req-1', 'del-2', 'processing'))).status).toBe(200);
    expect(hints.map((h) => h.deliveryId)).toEqual(['del-1', 'del-2']);
    expect(hints[1]).not.toHaveProperty('resultUrl');
  });

  it('answers 401 to a forged delivery and remembers nothing from it', async () => {
    const hints = await start();
    const real = delivery('req-1', 'del-1');
    const forged = { ...real, headers: { ...real.headers, 'x-deapi-signature': `sha256=${'0'.repeat(64)}` } };
    expect(await post(forged)).toEqual({ status: 401, body: { error: 'bad-signature' } });
    expect(await post({ ...real, headers: { ...real.headers, 'x-deapi-signature': '' } })).toEqual({ status: 401, body: { error: 'empty-signature' } });
    expect(hints).toEqual([]);
    expect((await post(real)).status).toBe(200);
    expect(hints).toHaveLength(1);
  });

  it('answers 400 to a signed body that is not a job event and 405 to other methods', async () => {
    const hints = await start();
    const body = '{"event":"ping"}';
    const signature = `sha256=${createHmac('sha256', secret).update(`${nowS}.${body}`).digest('hex')}`;
    const res = await post({ body, headers: { 'x-deapi-signature': signature, 'x-deapi-timestamp': String(nowS) } });
    expect(res).toEqual({ status: 400, body: { error: 'malformed' } });
    expect((await fetch(receiver!.url)).status).toBe(405);
    expect(hints).toEqual([]);
  });

  it('forgets the oldest delivery ids past its bound', async () => {
    const hints = await start({ maxRemembered: 2 });
    for (const id of ['d1', 'd2', 'd3']) await post(delivery('req', id));
    await post(delivery('req', 'd3'));
    await post(delivery('req', 'd1'));
    expect(hints.map((h) => h.deliveryId)).toEqual(['d1', 'd2', 'd3', 'd1']);
  });

  it('refuses a listen address that is not host:port', async () => {
    for (const listen of ['localhost', '127.0.0.1:99999', 'host:port']) {
      await expect(startWebhookReceiver({ listen, secret, clock, onHint: () => {} }), listen).rejects.toMatchObject({ code: 'E_USAGE_WEBHOOK_LISTEN' });
    }
  });

  it('listens on :port at 127.0.0.1 and on a bracketed IPv6 host', async () => {
    receiver = await startWebhookReceiver({ listen: ':0', secret, clock, onHint: () => {} });
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await receiver.close();
    receiver = await startWebhookReceiver({ listen: '[::1]:0', secret, clock, onHint: () => {} }).catch(() => undefined);
    if (receiver !== undefined) expect(receiver.url).toMatch(/^http:\/\/\[::1\]:\d+\/$/);
  });
});
