/**
 * Where a run's submissions whose answer was lost find their job: a verified delivery whose
 * URL names one of the run's items (webhook-correlation.ts) is offered here with its request
 * id, and the submission that lost its answer waits here, a bounded time, for that offer.
 * Offers that come first (a delivery before the lost answer is judged) are kept for the waiter.
 */
import type { Clock } from '../../common/index.js';

const keyOf = (runId: string, node: string): string => `${runId}\n${node}`;

/** A job a delivery named for an item: which attempt submitted it. */
export interface Offer {
  readonly attempt: number;
  readonly requestId: string;
}

export class AdoptionDesk {
  private readonly offers = new Map<string, Offer[]>();
  private readonly waiters = new Map<string, { attempt: number | null; found: (offer: Offer) => void }>();
  /** Request ids the run already knows from a submission's answer: their deliveries need no keeping. */
  private readonly known = new Set<string>();

  constructor(private readonly maxOffers = 100_000) {}

  /** A verified delivery for item `node` of run `runId`, attempt `attempt`, names job `requestId`. */
  offer(runId: string, node: string, attempt: number, requestId: string): void {
    const key = keyOf(runId, node);
    const waiter = this.waiters.get(key);
    if (waiter !== undefined && (waiter.attempt === null || waiter.attempt === attempt)) {
      this.waiters.delete(key);
      waiter.found({ attempt, requestId });
      return;
    }
    const list = this.offers.get(key) ?? [];
    list.push({ attempt, requestId });
    this.offers.set(key, list);
    if (this.offers.size > this.maxOffers) this.offers.delete(this.offers.keys().next().value as string);
  }

  /** The submission's answer named `requestId`: a delivery for it adopts nothing. */
  answered(requestId: string): void {
    this.known.add(requestId);
  }

  /** Whether a submission's answer named this job. */
  isKnown(requestId: string): boolean {
    return this.known.has(requestId);
  }

  /**
   * The job of item `node` of run `runId` (submitted by `attempt`, or by any attempt when null),
   * once a delivery names it: at once when one did already, else within `ms` on `clock`; null
   * when none came in time or `signal` aborted.
   */
  async wait(runId: string, node: string, attempt: number | null, ms: number, clock: Clock, signal: AbortSignal): Promise<Offer | null> {
    const key = keyOf(runId, node);
    const offered = this.offers.get(key)?.findLast((offer) => attempt === null || offer.attempt === attempt);
    if (offered !== undefined) {
      this.offers.delete(key);
      return offered;
    }
    if (signal.aborted || ms <= 0) return null;
    const stop = new AbortController();
    let found: Offer | null = null;
    this.waiters.set(key, {
      attempt,
      found: (offer) => {
        found = offer;
        stop.abort();
      },
    });
    try {
      await clock.sleep(ms, AbortSignal.any([signal, stop.signal]));
    } catch {
      // Woken by the offer, or the run stopped.
    } finally {
      this.waiters.delete(key);
    }
    return found;
  }
}
