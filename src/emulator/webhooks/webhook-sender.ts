/**
 * Delivers job.processing / job.completed / job.failed webhooks. Each delivery is retried on
 * the configured schedule (virtual seconds between attempts) until a receiver answers 2xx
 * within `timeout_ms` real ms; a 3xx counts as a failure (redirects are not followed). Every
 * attempt carries a fresh `X-DeAPI-Timestamp` and signature; `X-DeAPI-Delivery-Id` and the
 * body stay the same. No circuit breaker (the service disables an account's webhooks after 10
 * consecutive failures; the emulator keeps delivering).
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { EmulatorJob, EmulatorRuntime, WebhooksConfig } from '../types.js';
import {
  isoSeconds,
  serialiseWebhookBody,
  signWebhook,
  type WebhookDetails,
  type WebhookEvent,
  webhookData,
} from './webhook-payload.js';

export type { WebhookDetails, WebhookEvent } from './webhook-payload.js';

export class WebhookSender {
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private delivered = 0;
  private failed = 0;

  constructor(
    private readonly runtime: EmulatorRuntime,
    private readonly config: WebhooksConfig,
  ) {}

  /** Queues one event for `webhookUrl`, signed with `secret`, else the account default. */
  notify(job: EmulatorJob, event: WebhookEvent, webhookUrl: string, secret: string | null, details: WebhookDetails): void {
    if (this.closing.signal.aborted) return;
    const deliveryId = randomUUID();
    const body = serialiseWebhookBody({
      event,
      delivery_id: deliveryId,
      timestamp: isoSeconds(this.runtime.clock.now()),
      data: webhookData(job, event, details),
    });
    const task = this.deliver(webhookUrl, event, deliveryId, body, secret ?? this.config.secret).finally(() => {
      this.inFlight.delete(task);
    });
    this.inFlight.add(task);
  }

  /** Deliveries that got a 2xx, and deliveries given up after the last retry. */
  stats(): { delivered: number; failed: number; pending: number } {
    return { delivered: this.delivered, failed: this.failed, pending: this.inFlight.size };
  }

  /** Cancels every pending attempt and retry timer. */
  close(): void {
    this.closing.abort();
  }

  private async deliver(url: string, event: string, deliveryId: string, body: string, secret: string | null): Promise<void> {
    const schedule = this.config.retry_schedule_s.length > 0 ? this.config.retry_schedule_s : [0];
    for (const delayS of schedule) {
      try {
        if (delayS > 0) await this.runtime.clock.sleep(delayS * 1000, this.closing.signal);
        if (await this.attempt(url, event, deliveryId, body, secret)) {
          this.delivered++;
          return;
        }
      } catch {
        if (this.closing.signal.aborted) return;
      }
    }
    this.failed++;
  }

  private async attempt(url: string, event: string, deliveryId: string, body: string, secret: string | null): Promise<boolean> {
    const timestamp = Math.floor(this.runtime.clock.now() / 1000);
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.config.timeout_ms)]);
    try {
      const response = await request(url, {
        method: 'POST',
        body,
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'DeAPI-Webhook/1.0',
          'x-deapi-signature': signWebhook(secret, timestamp, body),
          'x-deapi-timestamp': String(timestamp),
          'x-deapi-event': event,
          'x-deapi-delivery-id': deliveryId,
        },
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      return false;
    }
  }
}
