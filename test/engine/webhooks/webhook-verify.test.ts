import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../src/engine/webhooks/webhook-verify.js';

const secret = 'whsec_0123456789abcdef0123456789abcdef';
const nowS = 1_790_000_000;
const now = nowS * 1000;
// As the service sends it: Laravel-style escaped slashes, hashed exactly as received.
const body = Buffer.from(
  '{"event":"job.completed","delivery_id":"3b1f2a5e-8c7d-4e6f-9a0b-1c2d3e4f5a6b","timestamp":"2026-08-07T11:43:14+00:00",' +
    '"data":{"job_request_id":"7a9e3c1d-2b4f-4a6e-8d0c-5e7f9a1b3c5d","status":"done","previous_status":"processing",' +
    '"job_type":"txt2img","completed_at":"2026-08-07T11:43:14+00:00","result_url":"https:\\/\\/results.deapi.ai\\/19315424\\/a.png?X-Amz-Signature=abc","processing_time_ms":12000}}',
);

/** The documented scheme: sha256=hex(HMAC_SHA256(secret, "<X-DeAPI-Timestamp>." + raw body)). */
function sign(rawBody: Buffer, timestamp: number | string, key = secret): string {
  return `sha256=${createHmac('sha256', key).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

function headers(signature: string | undefined, timestamp: string | number | null = nowS): Record<string, string> {
  const h: Record<string, string> = { 'x-deapi-event': 'job.completed', 'x-deapi-delivery-id': '3b1f2a5e-8c7d-4e6f-9a0b-1c2d3e4f5a6b' };
  if (signature !== undefined) h['x-deapi-signature'] = signature;
  if (timestamp !== null) h['x-deapi-timestamp'] = String(timestamp);
  return h;
}

describe('webhook verification', () => {
  it('accepts a valid delivery and lifts the job fields from the signed body', () => {
    const result = verifyWebhook({ rawBody: body, headers: headers(sign(body, nowS)), secret, now });
    expect(result).toEqual({
      ok: true,
      event: expect.objectContaining({
        event: 'job.completed',
        deliveryId: '3b1f2a5e-8c7d-4e6f-9a0b-1c2d3e4f5a6b',
        requestId: '7a9e3c1d-2b4f-4a6e-8d0c-5e7f9a1b3c5d',
        status: 'done',
        previousStatus: 'processing',
        jobType: 'txt2img',
        resultUrl: 'https://results.deapi.ai/19315424/a.png?X-Amz-Signature=abc',
      }),
    });
  });

  it('reads headers in any case', () => {
    const h = { 'X-DeAPI-Signature': sign(body, nowS), 'X-DeAPI-Timestamp': String(nowS) };
    expect(verifyWebhook({ rawBody: body, headers: h, secret, now }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const tampered = Buffer.from(body.toString().replace('"status":"done"', '"status":"error"'));
    expect(verifyWebhook({ rawBody: tampered, headers: headers(sign(body, nowS)), secret, now })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects a body re-serialised without the escaped slashes', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(verifyWebhook({ rawBody: reserialised, headers: headers(sign(body, nowS)), secret, now })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects a signature made with another secret', () => {
    const h = headers(sign(body, nowS, 'whsec_another_secret_of_32_characters!'));
    expect(verifyWebhook({ rawBody: body, headers: h, secret, now })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects a signature bound to another timestamp', () => {
    expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, nowS - 1), nowS), secret, now })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('accepts timestamps up to 300 s off and rejects 301 s either way', () => {
    for (const offset of [-300, 300]) {
      const ts = nowS + offset;
      expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, ts), ts), secret, now }).ok, String(offset)).toBe(true);
    }
    for (const offset of [-301, 301]) {
      const ts = nowS + offset;
      expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, ts), ts), secret, now }), String(offset)).toEqual({ ok: false, reason: 'stale-timestamp' });
    }
    const ts = nowS - 3600;
    expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, ts), ts), secret, now, toleranceS: 7200 }).ok).toBe(true);
  });

  it('rejects an empty signature while a secret is set', () => {
    expect(verifyWebhook({ rawBody: body, headers: headers(''), secret, now })).toEqual({ ok: false, reason: 'empty-signature' });
    expect(verifyWebhook({ rawBody: body, headers: headers('  '), secret, now })).toEqual({ ok: false, reason: 'empty-signature' });
  });

  it('accepts an unsigned delivery only when no secret is configured', () => {
    expect(verifyWebhook({ rawBody: body, headers: headers(''), secret: null, now }).ok).toBe(true);
  });

  it('rejects missing headers', () => {
    expect(verifyWebhook({ rawBody: body, headers: headers(undefined), secret, now })).toEqual({ ok: false, reason: 'missing-signature' });
    expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, nowS), null), secret, now })).toEqual({ ok: false, reason: 'bad-timestamp' });
  });

  it('rejects timestamps that are not integer seconds', () => {
    for (const ts of ['2026-08-07T11:43:14Z', '1790000000.5', '-1790000000', 'abc']) {
      expect(verifyWebhook({ rawBody: body, headers: headers(sign(body, ts), ts), secret, now }), ts).toEqual({ ok: false, reason: 'bad-timestamp' });
    }
  });

  it('rejects signatures of the wrong shape without throwing', () => {
    const hex = sign(body, nowS).slice('sha256='.length);
    for (const signature of [hex, `sha1=${hex}`, `sha256=${hex.slice(2)}`, `sha256=${hex}00`, 'sha256=zz', `v1,${hex}`]) {
      expect(verifyWebhook({ rawBody: body, headers: headers(signature), secret, now }), signature).toEqual({ ok: false, reason: 'bad-signature' });
    }
  });

  it('rejects a signed body that is not a job event', () => {
    for (const raw of ['not json', '[]', '{"event":"job.completed"}', '{"event":"job.completed","data":{"status":"done"}}']) {
      const rawBody = Buffer.from(raw);
      expect(verifyWebhook({ rawBody, headers: headers(sign(rawBody, nowS)), secret, now }), raw).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
