/**
 * Verifies a deAPI webhook delivery: `X-DeAPI-Signature: sha256=<hex>` is the HMAC-SHA256,
 * keyed by the webhook secret, of `<X-DeAPI-Timestamp>.<raw body>`; the timestamp (Unix
 * seconds) must be within the tolerance of now. The body is hashed exactly as received.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  readonly rawBody: Buffer;
  /** Request headers (any case; Node gives them lowercased). */
  readonly headers: WebhookHeaders;
  /**
   * The secret the deliveries are signed with. `null` accepts unsigned deliveries (the service
   * sends an empty signature when no secret is configured): only for trusted networks.
   */
  readonly secret: string | null;
  /** Now, ms since the epoch (the run's clock). */
  readonly now: number;
  /** @default 300 */
  readonly toleranceS?: number;
}

/** A verified delivery. Only signed body fields are used, never unsigned headers. */
export interface WebhookEvent {
  /** `job.processing`, `job.completed`, `job.failed`. */
  readonly event: string;
  /** The body's `delivery_id`, else the `X-DeAPI-Delivery-Id` header; null if neither. */
  readonly deliveryId: string | null;
  readonly requestId: string;
  /** `processing`, `done`, `error`. */
  readonly status: string;
  readonly previousStatus: string | null;
  readonly jobType: string | null;
  readonly resultUrl: string | null;
  /** The whole `data` object, for fields not lifted above (`error_code`, `retryable`, …). */
  readonly data: Readonly<Record<string, unknown>>;
}

export type WebhookRejection = 'missing-signature' | 'empty-signature' | 'bad-signature' | 'stale-timestamp' | 'bad-timestamp' | 'malformed';

export type VerifyWebhookResult = { readonly ok: true; readonly event: WebhookEvent } | { readonly ok: false; readonly reason: WebhookRejection };

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const TIMESTAMP = /^\d{1,15}$/;

export function verifyWebhook(options: VerifyWebhookOptions): VerifyWebhookResult {
  if (options.secret !== null) {
    const rejection = checkSignature(options, options.secret);
    if (rejection !== undefined) return { ok: false, reason: rejection };
  }
  const event = parseDelivery(options.rawBody, header(options.headers, 'x-deapi-delivery-id'));
  return event === undefined ? { ok: false, reason: 'malformed' } : { ok: true, event };
}

function checkSignature(options: VerifyWebhookOptions, secret: string): WebhookRejection | undefined {
  const signature = header(options.headers, 'x-deapi-signature');
  if (signature === undefined) return 'missing-signature';
  if (signature.trim() === '') return 'empty-signature';
  const timestamp = header(options.headers, 'x-deapi-timestamp')?.trim();
  if (timestamp === undefined || !TIMESTAMP.test(timestamp)) return 'bad-timestamp';
  const hex = SIGNATURE.exec(signature.trim())?.[1];
  if (hex === undefined) return 'bad-signature';
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(options.rawBody).digest();
  const given = Buffer.from(hex, 'hex');
  // timingSafeEqual throws on a length mismatch; both are 32 bytes here, checked anyway.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
  const toleranceMs = (options.toleranceS ?? 300) * 1000;
  if (Math.abs(options.now - Number(timestamp) * 1000) > toleranceMs) return 'stale-timestamp';
  return undefined;
}

function parseDelivery(rawBody: Buffer, deliveryHeader: string | undefined): WebhookEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(body) || typeof body['event'] !== 'string' || !isRecord(body['data'])) return undefined;
  const data = body['data'];
  if (typeof data['job_request_id'] !== 'string' || typeof data['status'] !== 'string') return undefined;
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    event: body['event'],
    deliveryId: text(body['delivery_id']) ?? deliveryHeader ?? null,
    requestId: data['job_request_id'],
    status: data['status'],
    previousStatus: text(data['previous_status']),
    jobType: text(data['job_type']),
    resultUrl: text(data['result_url']),
    data,
  };
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  let value = headers[name];
  if (value === undefined) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : headers[key];
  }
  return typeof value === 'string' ? value : value?.[0];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
