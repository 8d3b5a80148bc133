/**
 * Delivers job.processing / job.completed / job.failed webhooks. Each delivery is retried on
 * the configured schedule (virtual seconds between attempts) until a receiver answers 2xx
 * within `timeout_ms` real ms; a 3xx counts as a failure (redirects are not followed). Every
 * attempt carries a fresh `X-DeAPI-Timestamp` and signature; `X-DeAPI-Delivery-Id` and the
 * body stay the same. The account's breaker (docs/deapi-contract.md, webhooks): each delivery
 * that fails after its last retry counts, a 2xx resets the count, and `breaker_threshold`
 * consecutive failures switch the account's webhooks off until `enable()` (the dashboard's
 * switch; `POST /_emulator/webhooks/enable`). Per-request URLs are still delivered while it is
 * open, as the public docs say, unless `breaker_stops_per_request`.
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
  private consecutiveFailures = 0;
  private breakerOpen = false;
  private trips = 0;
  private suppressed = 0;

  constructor(
    private readonly runtime: EmulatorRuntime,
    private readonly config: WebhooksConfig,
  ) {}

  /** Queues one event for `webhookUrl`, signed with `secret`, else the account default. */
  notify(job: EmulatorJob, event: WebhookEvent, webhookUrl: string, secret: string | null, details: WebhookDetails): void {
    if (this.closing.signal.aborted) return;
    if (this.breakerOpen && this.config.breaker_stops_per_request) {
      this.suppressed++;
      return;
    }
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

  /** Deliveries that got a 2xx, deliveries given up after the last retry, and the breaker. */
  stats(): { delivered: number; failed: number; pending: number; consecutive_failures: number; breaker_open: boolean; breaker_trips: number; suppressed: number } {
    return {
      delivered: this.delivered,
      failed: this.failed,
      pending: this.inFlight.size,
      consecutive_failures: this.consecutiveFailures,
      breaker_open: this.breakerOpen,
      breaker_trips: this.trips,
      suppressed: this.suppressed,
    };
  }

  /** Switches the account's webhooks on again (the dashboard's switch) and clears the count. */
  enable(): void {
    this.breakerOpen = false;
    this.consecutiveFailures = 0;
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
          this.consecutiveFailures = 0;
          return;
        }
      } catch {
        if (this.closing.signal.aborted) return;
      }
    }
    if (this.closing.signal.aborted) return;
    this.failed++;
    this.consecutiveFailures++;
    const threshold = this.config.breaker_threshold;
    if (threshold > 0 && this.consecutiveFailures >= threshold && !this.breakerOpen) {
      this.breakerOpen = true;
      this.trips++;
    }
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
