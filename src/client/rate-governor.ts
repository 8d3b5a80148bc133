import { EventEmitter } from 'node:events';
import { type Clock, enqueueAbortable, systemClock } from '../common/index.js';
import { DailyLimitError } from './errors/daily-limit-error.js';
import { type BucketAnswer, type BucketNews, type BucketTicket, GovernorBucket, type Refusal } from './governor-bucket.js';
import { splitBucketKey } from './bucket-key.js';
import { type BucketSlots, ModelRoutes } from './model-routes.js';
import { permitOnce } from './permit-once.js';
import type { RateLimitSnapshot } from './rate-limit-snapshot.js';
import type { AcquireRequest, Governor, GovernorBucketView, GovernorEvents, GovernorPermit } from './governor-types.js';

/** Options of {@link RateGovernor}. */
export interface RateGovernorOptions {
  /** The clock the service's `X-RateLimit-Reset` refers to (the emulator's virtual clock in tests). @default systemClock */
  readonly clock?: Clock;
  /**
   * When a bucket's daily window is used up: `throw` a DailyLimitError at once (the run stops
   * cleanly and can resume), or `wait` until the daily window refills. @default 'throw'
   */
  readonly onDailyLimit?: 'throw' | 'wait';
}

interface Waiter {
  readonly request: AcquireRequest;
  resolve(ticket: BucketTicket): void;
  reject(error: unknown): void;
}

/**
 * Paces requests per rate-limit pool so that, once a pool's limits are known, none is sent
 * into an exhausted window. One bucket per pool, and one per model once an answer says
 * `X-RateLimit-Source: model` (which bucket a request spends is {@link ModelRoutes}'s). Before a bucket is known one request goes out to learn it
 * (so at most one 429 per bucket while learning). Waiters queue FIFO per bucket and hold no
 * slot while they wait; aborting a waiter's signal removes it.
 */
export class RateGovernor extends EventEmitter<GovernorEvents> implements Governor {
  readonly clock: Clock;
  private readonly onDailyLimit: 'throw' | 'wait';
  private readonly buckets = new Map<string, GovernorBucket>();
  private readonly queues = new Map<string, Waiter[]>();
  private readonly timers = new Map<string, { due: number; controller: AbortController }>();
  private readonly routes = new ModelRoutes();
  private readonly slots: BucketSlots<BucketTicket> = {
    reserve: (key, request) => this.enqueue(key, request),
    permit: (key, ticket) => this.permit(key, ticket),
    moveToModel: (pool, ticket, modelKey, answer) => {
      this.bucket(pool).refund(ticket);
      this.pump(pool);
      this.report(modelKey, this.bucket(modelKey).adopt(this.answer(answer)));
      this.pump(modelKey);
    },
  };
  private readonly dailyAnnounced = new Map<string, number>();
  private readonly throttleAnnounced = new Map<string, number | null>();

  constructor(options: RateGovernorOptions = {}) {
    super();
    this.clock = options.clock ?? systemClock;
    this.onDailyLimit = options.onDailyLimit ?? 'throw';
  }

  /** Waits until `request` may go out and reserves its slot. */
  acquire(request: AcquireRequest): Promise<GovernorPermit> {
    return this.routes.acquire(request, this.slots);
  }

  /** The state of every bucket seen so far (for verbose output and reports). */
  describe(): GovernorBucketView[] {
    const now = this.clock.now();
    return [...this.buckets.values()].map((b) => {
      const room = b.room(now);
      return {
        bucket: b.key,
        state: b.state,
        limit: b.limit,
        windowSeconds: b.windowMs / 1000,
        ...(b.daily ? { dailyRemaining: b.daily.remaining } : {}),
        ...(room === undefined ? {} : { room }),
        waiting: this.queues.get(b.key)?.length ?? 0,
      };
    });
  }

  private permit(key: string, ticket: BucketTicket): GovernorPermit {
    return permitOnce(key, {
      settle: (answer) => {
        this.report(key, this.bucket(key).settle(ticket, this.answer(answer)));
        this.pump(key);
      },
      abandon: (reachedService) => {
        this.bucket(key).abandon(ticket, reachedService);
        this.pump(key);
      },
    });
  }

  private enqueue(key: string, request: AcquireRequest): Promise<BucketTicket> {
    const queue = this.queue(key);
    if (queue.length === 0) {
      const reservation = this.bucket(key).reserve(this.clock.now());
      if (reservation.ok) return Promise.resolve(reservation.ticket);
      this.noteRefusal(key, reservation);
      if (reservation.reason === 'daily-exhausted' && this.onDailyLimit === 'throw') {
        return Promise.reject(this.dailyError(key, request, reservation.until));
      }
      this.schedule(key, reservation.until);
    }
    return new Promise<BucketTicket>((resolve, reject) => {
      enqueueAbortable(queue, request.signal, { resolve, reject }, (settle): Waiter => ({ request, ...settle }));
    });
  }

  /** Hands free slots to waiters in arrival order, then sleeps until the next change. */
  private pump(key: string): void {
    const queue = this.queue(key);
    const bucket = this.bucket(key);
    while (queue.length > 0) {
      const reservation = bucket.reserve(this.clock.now());
      if (reservation.ok) {
        queue.shift()!.resolve(reservation.ticket);
        continue;
      }
      this.noteRefusal(key, reservation);
      if (reservation.reason === 'daily-exhausted' && this.onDailyLimit === 'throw') {
        for (const waiter of queue.splice(0)) waiter.reject(this.dailyError(key, waiter.request, reservation.until));
        return;
      }
      this.schedule(key, reservation.until);
      return;
    }
  }

  private schedule(key: string, until: number | null): void {
    if (until === null || !Number.isFinite(until)) return;
    const existing = this.timers.get(key);
    if (existing && existing.due <= until) return;
    existing?.controller.abort();
    const controller = new AbortController();
    this.timers.set(key, { due: until, controller });
    const delay = Math.max(0, until - this.clock.now());
    this.clock.sleep(delay, controller.signal).then(
      () => {
        if (this.timers.get(key)?.controller === controller) this.timers.delete(key);
        this.pump(key);
      },
      () => {},
    );
  }

  private noteRefusal(key: string, refusal: Refusal): void {
    const { pool, model } = splitBucketKey(key);
    if (refusal.reason === 'window') {
      // Once per wait, not once per queued request.
      if (this.throttleAnnounced.get(key) === refusal.until) return;
      this.throttleAnnounced.set(key, refusal.until);
      this.emit('throttled', { bucket: key, pool, ...(model ? { model } : {}), until: refusal.until, reason: 'window' });
    } else if (refusal.reason === 'daily-exhausted' && refusal.until !== null) {
      this.announceDaily(key, refusal.until);
    }
  }

  private report(key: string, news: BucketNews): void {
    const { pool, model } = splitBucketKey(key);
    const bucket = this.bucket(key);
    const tag = model ? { model } : {};
    if (news.learned) {
      this.emit('limitLearned', {
        bucket: key,
        pool,
        ...tag,
        limit: bucket.limit,
        windowSeconds: bucket.windowMs / 1000,
        ...(bucket.daily ? { dailyLimit: bucket.daily.limit } : {}),
      });
    }
    if (news.throttledUntil !== undefined) this.emit('throttled', { bucket: key, pool, ...tag, until: news.throttledUntil, reason: '429' });
    if (news.dailyResetAt !== undefined) this.announceDaily(key, news.dailyResetAt);
  }

  /** `dailyExhausted`, once per bucket and daily window. */
  private announceDaily(key: string, resetAt: number): void {
    if (this.dailyAnnounced.get(key) === resetAt) return;
    this.dailyAnnounced.set(key, resetAt);
    const { pool, model } = splitBucketKey(key);
    this.emit('dailyExhausted', { bucket: key, pool, ...(model ? { model } : {}), resetAt });
  }

  private dailyError(key: string, request: AcquireRequest, resetAt: number | null): DailyLimitError {
    return DailyLimitError.notSent(key, request, resetAt, this.clock.now());
  }

  private answer(answer: { status: number; rateLimit: RateLimitSnapshot }): BucketAnswer {
    return { ...answer, receivedAt: this.clock.now() };
  }

  private bucket(key: string): GovernorBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new GovernorBucket(key)));
    return bucket;
  }

  private queue(key: string): Waiter[] {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }
}
