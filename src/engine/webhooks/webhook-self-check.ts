/**
 * The start-up self-check of `--webhook-url`: before the first job is given the URL, a test
 * delivery signed with the run's secret (as the service signs: docs/deapi-contract.md, Webhooks)
 * is POSTed to the public URL, and must come out at the local receiver. Otherwise the session
 * polls instead and says so: a URL nothing answers at would only make failing deliveries.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Clock } from '../../common/index.js';

/** The `job_request_id` prefix of a self-check delivery (never a real job's id). */
export const SELF_CHECK_PREFIX = 'deflow-self-check-';

/** Waits (real time) for the self-check deliveries a receiver sees. */
export class SelfCheckWatch {
  private readonly waiting = new Map<string, () => void>();

  /** Whether `requestId` is a self-check's (then the receiver's hint goes no further). */
  saw(requestId: string): boolean {
    if (!requestId.startsWith(SELF_CHECK_PREFIX)) return false;
    this.waiting.get(requestId)?.();
    return true;
  }

  /**
   * POSTs a signed test delivery to `url` and waits up to `timeoutMs` (real) for the receiver to
   * see it: null when it did, else what went wrong.
   */
  async check(url: string, secret: string, clock: Clock, timeoutMs = 5000): Promise<string | null> {
    const requestId = `${SELF_CHECK_PREFIX}${randomUUID()}`;
    const seen = new Promise<void>((resolve) => this.waiting.set(requestId, resolve));
    const deliveryId = randomUUID();
    const now = clock.now();
    const body = JSON.stringify({ event: 'deflow.self-check', delivery_id: deliveryId, timestamp: new Date(now).toISOString(), data: { job_request_id: requestId, status: 'self-check' } });
    const timestamp = String(Math.floor(now / 1000));
    const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    try {
      const answer = fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-deapi-signature': signature, 'x-deapi-timestamp': timestamp, 'x-deapi-event': 'deflow.self-check', 'x-deapi-delivery-id': deliveryId },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      }).then(
        async (res) => {
          await res.body?.cancel();
          return res.status;
        },
        (error: unknown) => (error instanceof Error ? (((error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message)) : String(error)),
      );
      const first = await Promise.race([seen.then(() => 'seen' as const), answer, late]);
      if (first === 'seen') return null;
      if (first === 'late') return `no answer within ${timeoutMs / 1000} s`;
      if (typeof first === 'number') return (await Promise.race([seen.then(() => 'seen' as const), late])) === 'seen' ? null : `the URL answered ${first}, but the delivery did not reach the receiver`;
      return `the URL could not be reached (${first})`;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(requestId);
    }
  }
}
