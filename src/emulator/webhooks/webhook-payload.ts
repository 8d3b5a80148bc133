/**
 * Webhook bodies and signatures as the service sends them (docs/deapi-contract.md#webhooks): the body is
 * serialised Laravel-style with `/` escaped as `\/`, and `X-DeAPI-Signature` is
 * `sha256=` + hex HMAC-SHA256(secret, "<X-DeAPI-Timestamp>." + raw body).
 */
import { createHmac } from 'node:crypto';
import type { EmulatorJob } from '../types.js';

export type WebhookEvent = 'job.processing' | 'job.completed' | 'job.failed';

/** What the job store adds to a delivery besides the job itself. */
export interface WebhookDetails {
  /** Inference type slug (`txt2img`, `video2text`, …). */
  readonly jobType: string;
  /** Pre-signed result URL, for job.completed. */
  readonly resultUrl: string | null;
}

/** ISO 8601 with a `+00:00` offset and whole seconds, as the service prints dates. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The `data` object of a delivery. */
export function webhookData(job: EmulatorJob, event: WebhookEvent, details: WebhookDetails): Record<string, unknown> {
  const base = { job_request_id: job.requestId, job_type: details.jobType };
  const started = job.startedAt ?? job.createdAt;
  const finished = job.finishedAt ?? started;
  if (event === 'job.processing') {
    return { ...base, status: 'processing', previous_status: 'pending', started_at: isoSeconds(started) };
  }
  if (event === 'job.completed') {
    return {
      ...base,
      status: 'done',
      previous_status: 'processing',
      completed_at: isoSeconds(finished),
      result_url: details.resultUrl,
      processing_time_ms: Math.max(0, Math.round(finished - started)),
    };
  }
  const error = job.error;
  return {
    ...base,
    status: 'error',
    previous_status: 'processing',
    failed_at: isoSeconds(finished),
    error_code: error?.code ?? 'WORKER_ERROR',
    error_message: error?.message ?? 'worker-error',
    error_reason: error?.reason ?? 'PROCESSING_FAILED',
    retryable: error?.retryable ?? true,
    refunded: error?.refunded ?? true,
  };
}

/** The raw body: JSON with slashes escaped as PHP's json_encode does. */
export function serialiseWebhookBody(payload: unknown): string {
  return JSON.stringify(payload).replaceAll('/', '\\/');
}

/** The `X-DeAPI-Signature` value; empty when there is no secret (unsigned delivery). */
export function signWebhook(secret: string | null, timestamp: number, rawBody: string): string {
  if (!secret) return '';
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}
