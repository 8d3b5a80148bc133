/**
 * Which rate-limit bucket a request spends, for every governor (the in-process
 * `RateGovernor` and the engine's Redis-backed one). A pool's requests spend the pool's
 * bucket; a model whose answers say `X-RateLimit-Source: model` has limits of its own and gets
 * a bucket of its own. Until an answer says which, one request per model probes through the
 * pool's bucket and the model's other requests wait for its answer, then go to the bucket it
 * named. Each governor keeps its buckets its own way ({@link BucketSlots}).
 */
import { bucketKey } from './bucket-key.js';
import { permitOnce } from './permit-once.js';
import type { AcquireRequest, GovernorPermit } from './governor-types.js';
import { hasRateLimitInfo, type RateLimitSnapshot } from './rate-limit-snapshot.js';

/** What a governor's permit is settled with. */
export interface SlotAnswer {
  readonly status: number;
  readonly rateLimit: RateLimitSnapshot;
}

/** A governor's buckets, as {@link ModelRoutes} uses them; `T` is the governor's slot (ticket). */
export interface BucketSlots<T> {
  /** Waits for a slot of bucket `key` (rejects when the request's signal aborts, or the daily limit refuses it). */
  reserve(key: string, request: AcquireRequest): Promise<T>;
  /** The permit that settles (or gives back) `slot` of bucket `key`. */
  permit(key: string, slot: T): GovernorPermit;
  /**
   * A probe's answer said the model has limits of its own: give `slot` back to the pool's
   * bucket (uncounted) and teach the model's bucket `modelKey` the answer. The model's waiting
   * requests go on once this is done (or failed).
   */
  moveToModel(pool: string, slot: T, modelKey: string, answer: SlotAnswer): void | Promise<void>;
}

const NO_PERMIT: GovernorPermit = { bucket: null, settle: () => {}, abandon: () => {} };

export class ModelRoutes {
  /** `pool␀model` → which bucket that model's requests spend. */
  private readonly routes = new Map<string, 'pool' | 'model'>();
  /** `pool␀model` → the answer of the request that probes it. */
  private readonly probes = new Map<string, Promise<void>>();

  /**
   * Waits until `request` may go out and reserves its slot in the bucket its route names; the
   * first request of a model whose route is unknown probes it, the model's others wait for
   * that answer (aborting the request's signal stops the wait).
   */
  async acquire<T>(request: AcquireRequest, slots: BucketSlots<T>): Promise<GovernorPermit> {
    const { pool, model } = request;
    if (pool === null) return NO_PERMIT;
    for (;;) {
      request.signal?.throwIfAborted();
      const routeKey = model ? `${pool}\u0000${model}` : undefined;
      const route = routeKey === undefined ? 'pool' : this.routes.get(routeKey);
      if (route !== undefined) {
        const key = route === 'model' ? bucketKey(pool, model) : pool;
        return slots.permit(key, await slots.reserve(key, request));
      }
      const pending = this.probes.get(routeKey!);
      if (pending !== undefined) {
        await abortable(pending, request.signal);
        continue;
      }
      return this.probe(request, pool, model!, routeKey!, slots);
    }
  }

  /** This request probes whether the model has its own bucket; others for it wait. */
  private async probe<T>(request: AcquireRequest, pool: string, model: string, routeKey: string, slots: BucketSlots<T>): Promise<GovernorPermit> {
    let done!: () => void;
    this.probes.set(routeKey, new Promise<void>((resolve) => (done = resolve)));
    const finish = (): void => {
      this.probes.delete(routeKey);
      done();
    };
    let slot: T;
    try {
      slot = await slots.reserve(pool, request);
    } catch (error) {
      finish();
      throw error;
    }
    const inner = slots.permit(pool, slot);
    return permitOnce(pool, {
      settle: (answer) => {
        if (answer.rateLimit.source === 'model') {
          this.routes.set(routeKey, 'model');
          const moved = slots.moveToModel(pool, slot, bucketKey(pool, model), answer);
          if (moved === undefined) finish();
          else moved.then(finish, finish);
          return;
        }
        // An answer that says nothing of the limits (a 5xx without headers) leaves the route to the next request.
        if (hasRateLimitInfo(answer.rateLimit) || (answer.status >= 200 && answer.status < 300) || answer.status === 422) this.routes.set(routeKey, 'pool');
        inner.settle(answer);
        finish();
      },
      abandon: (reachedService) => {
        inner.abandon(reachedService);
        finish();
      },
    });
  }
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
