/**
 * A rate governor whose buckets live in Redis, shared by every process that spends the same
 * account (`deflow run --governor`, and the workers of `--queue`). Each bucket is the client's
 * own window mirror ({@link SharedBucket}); this class does what the in-process governor
 * does around it: this process's waiters per bucket ({@link WaiterQueues}), the daily limit,
 * and the news processes share ({@link GovernorAnnouncer}). Which bucket a request spends is
 * the client's {@link ModelRoutes}, as in the in-process governor. It also runs the engine's
 * intent hook between a permit and the POST (SubmitGate).
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { AcquireRequest, BucketAnswer, BucketNews, BucketSlots, BucketTicket, Governor, GovernorBucket, GovernorBucketView, GovernorEvents, GovernorPermit, RateLimitSnapshot, Refusal } from '../../client/index.js';
import { DailyLimitError, ModelRoutes, permitOnce } from '../../client/index.js';
import { type Clock, systemClock } from '../../common/index.js';
import { type SubmitGate, SubmitHooks } from '../run/index.js';
import { claimOf, fairShare } from './fair-share.js';
import { GovernorAnnouncer, type GovernorMessage, newsMessage, parseMessages } from './governor-news.js';
import { type MutableShared, SharedBucket, takeTicket } from './shared-bucket.js';
import { type Waiter, WaiterQueues } from './waiter-queues.js';

export interface RedisGovernorOptions {
  /** Commands. */
  readonly redis: Redis;
  /** A connection of its own for pub/sub (it cannot send other commands once subscribed). */
  readonly subscriber: Redis;
  /** Key prefix of the account (`deflow:<scope>`); processes with the same prefix share buckets. */
  readonly prefix: string;
  /** Every process sharing the buckets must read the same time (the system clock, or one virtual clock). */
  readonly clock?: Clock;
  /** @default 'throw' */
  readonly onDailyLimit?: 'throw' | 'wait';
  /** Real ms between liveness renewals; a process silent for 3 of them is taken for dead. @default 5000 */
  readonly heartbeatMs?: number;
  /**
   * Clock ms a process waits past a window end another process computed: clocks of separate
   * processes (and machines) differ a little. @default 100 ms plus 5 real ms
   */
  readonly skewMarginMs?: number;
}

/** A slot this process holds: the bucket's ticket and its id in the shared state. */
interface HeldTicket {
  readonly id: string;
  readonly ticket: BucketTicket;
}

export class RedisGovernor extends EventEmitter<GovernorEvents> implements Governor, SubmitGate {
  readonly clock: Clock;
  /** This process's id in the shared state. */
  readonly owner = randomBytes(6).toString('hex');
  private readonly onDailyLimit: 'throw' | 'wait';
  private readonly buckets = new Map<string, SharedBucket>();
  private readonly waiters: WaiterQueues<HeldTicket>;
  private readonly routes = new ModelRoutes();
  private readonly slots: BucketSlots<HeldTicket> = {
    reserve: (key, request) => this.waiters.enqueue(key, request),
    permit: (key, held) => this.permit(key, held),
    moveToModel: (pool, held, modelKey, answer) => {
      const received = this.answer(answer);
      const work = this.change(pool, (bucket, shared) => {
        const ticket = takeTicket(shared, held.id);
        if (ticket !== undefined) bucket.refund(ticket);
        return {};
      }).then(() => this.change(modelKey, (bucket) => bucket.adopt(received)));
      this.background(modelKey, work);
      return work;
    },
  };
  private readonly announcer = new GovernorAnnouncer(this);
  private readonly hooks = new SubmitHooks();
  /** Buckets whose shared state holds a claim of this process's waiters. */
  private readonly claimed = new Set<string>();
  private readonly channel: string;
  private readonly alivePrefix: string;
  private readonly heartbeat: NodeJS.Timeout;
  private heartbeats = 0;
  /** Read each time: a clock that follows a standalone emulator changes its rate at its first answer. */
  private get skewMs(): number {
    return this.options.skewMarginMs ?? 100 + 5 / this.clock.realPerVirtual;
  }
  /** The last bucket change that could not be written (kept for diagnostics). */
  lastError: unknown;
  private closed = false;

  constructor(private readonly options: RedisGovernorOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.onDailyLimit = options.onDailyLimit ?? 'throw';
    // The skew is read at each wait: a clock that follows a standalone emulator changes its rate at the first answer.
    const skew = (): number => this.skewMs;
    this.waiters = new WaiterQueues<HeldTicket>({
      clock: this.clock,
      get skewMs() {
        return skew();
      },
      drain: (key, queue) => this.drain(key, queue),
    });
    this.channel = `${options.prefix}:gov`;
    this.alivePrefix = `${options.prefix}:alive:`;
    const every = options.heartbeatMs ?? 5000;
    const beat = (): void => {
      this.heartbeats++;
      options.redis.set(`${this.alivePrefix}${this.owner}`, '1', 'PX', every * 3).catch(() => {});
    };
    beat();
    this.heartbeat = setInterval(beat, every);
    this.heartbeat.unref();
    options.subscriber.on('message', this.onMessage);
  }

  /** Subscribes to the account's channel; call once before use. */
  async start(): Promise<void> {
    await this.options.subscriber.subscribe(this.channel);
    await this.options.redis.set(`${this.alivePrefix}${this.owner}`, '1', 'PX', (this.options.heartbeatMs ?? 5000) * 3);
  }

  /** Redis calls made by this governor (bucket operations and liveness renewals). */
  get redisCalls(): number {
    let calls = this.heartbeats;
    for (const bucket of this.buckets.values()) calls += bucket.calls;
    return calls;
  }

  async acquire(request: AcquireRequest): Promise<GovernorPermit> {
    return this.hooks.afterPermit(request, await this.routes.acquire(request, this.slots));
  }

  arm(signal: AbortSignal, hook: () => Promise<void>): void {
    this.hooks.arm(signal, hook);
  }

  disarm(signal: AbortSignal): void {
    this.hooks.disarm(signal);
  }

  describe(): GovernorBucketView[] {
    const now = this.clock.now();
    return [...this.buckets.entries()].map(([key, shared]) => {
      // A copy of the shared state as last read: its room is what every process left of the window then.
      const b = shared.view();
      const room = b.room(now);
      return {
        bucket: key,
        state: b.state,
        limit: b.limit,
        windowSeconds: b.windowMs / 1000,
        ...(b.daily ? { dailyRemaining: b.daily.remaining } : {}),
        ...(room === undefined ? {} : { room }),
        waiting: this.waiters.queued(key),
      };
    });
  }

  /** Stops the liveness renewals and the timers; the connections stay the caller's. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.waiters.close();
    this.options.subscriber.off('message', this.onMessage);
    await this.options.subscriber.unsubscribe(this.channel).catch(() => {});
    await this.options.redis.del(`${this.alivePrefix}${this.owner}`).catch(() => {});
  }

  private permit(key: string, held: HeldTicket): GovernorPermit {
    return permitOnce(key, {
      settle: (answer) => this.background(key, this.settle(key, held, this.answer(answer))),
      abandon: (reachedService) =>
        this.background(
          key,
          this.change(key, (bucket, shared) => {
            const ticket = takeTicket(shared, held.id);
            if (ticket !== undefined) bucket.abandon(ticket, reachedService);
            return {};
          }),
        ),
    });
  }

  private async settle(key: string, held: HeldTicket, answer: BucketAnswer): Promise<void> {
    await this.change(key, (bucket, shared) => {
      const ticket = takeTicket(shared, held.id);
      // A ticket expired by another process (this one looked dead): its count is already kept.
      return ticket === undefined ? {} : bucket.settle(ticket, answer);
    });
  }

  /**
   * Applies a change that may teach the bucket something or free a slot: publishes what was
   * learned and wakes waiters (here, and in other processes when any waits for an answer).
   */
  private async change(key: string, operation: (bucket: GovernorBucket, shared: MutableShared) => BucketNews | Record<string, never>): Promise<void> {
    const shared = this.bucket(key);
    const news = await shared.apply((bucket, state) => {
      const result = operation(bucket, state) as Partial<BucketNews>;
      const message = newsMessage(this.owner, key, bucket, result);
      if (message !== null || state.waiting) {
        state.publish = JSON.stringify(message ?? { from: this.owner, bucket: key });
        state.waiting = false;
      }
      return result;
    });
    this.announcer.changed(key, news, () => shared.view());
    this.waiters.pump(key);
  }

  private readonly onMessage = (channel: string, text: string): void => {
    if (channel !== this.channel || this.closed) return;
    for (const message of parseMessages(text)) {
      if (message.from === this.owner) continue;
      this.announcer.heard(message);
      if (this.waiters.waiting(message.bucket)) this.waiters.pump(message.bucket);
    }
  };

  /** Hands slots to this process's waiters in arrival order until the bucket refuses. */
  private async drain(key: string, queue: Waiter<HeldTicket>[]): Promise<void> {
    const shared = this.bucket(key);
    while (queue.length > 0 || this.claimed.has(key)) {
      // As if a little earlier: a window end another process saw may be a little ahead of ours.
      const now = this.clock.now() - this.skewMs;
      const since = queue.map((waiter) => waiter.since);
      // Slots for every waiter at once, as far as the bucket has room and older waiters of other
      // processes leave it: one write, not one each.
      const outcome = await shared.apply((bucket, state) => {
        const held: HeldTicket[] = [];
        const fair = fairShare(bucket, now, since, state.queued, this.owner);
        let refusal: Refusal | null = null;
        while (held.length < fair.share) {
          const reservation = bucket.reserve(now);
          if (!reservation.ok) {
            refusal = { reason: reservation.reason, until: reservation.until };
            break;
          }
          held.push({ id: shared.addTicket(state, reservation.ticket), ticket: reservation.ticket });
        }
        if (refusal === null && held.length < since.length) refusal = fair.refusal;
        if (refusal !== null) {
          if (refusal.until === null) state.waiting = true;
          // Every process must learn a used-up daily window, however this one found out (the
          // coordinator of a queue run defers the pool on it).
          if (refusal.reason === 'daily-exhausted' && refusal.until !== null) state.publish = JSON.stringify({ from: this.owner, bucket: key, dailyResetAt: refusal.until } satisfies GovernorMessage);
        }
        const claim = claimOf(since.slice(held.length), now);
        if (claim === null) delete state.queued[this.owner];
        else state.queued[this.owner] = claim;
        return { held, refusal, claimed: claim !== null };
      });
      if (outcome.claimed) this.claimed.add(key);
      else this.claimed.delete(key);
      const unused: HeldTicket[] = [];
      for (const held of outcome.held) {
        const waiter = queue.shift();
        if (waiter === undefined) unused.push(held);
        else waiter.resolve(held);
      }
      if (unused.length > 0) {
        // Waiters gave up while their slots were being taken: give the slots back.
        await this.change(key, (bucket, state) => {
          for (const held of unused) {
            const ticket = takeTicket(state, held.id);
            if (ticket !== undefined) bucket.abandon(ticket, false);
          }
          return {};
        });
      }
      const { refusal } = outcome;
      if (refusal === null) continue;
      this.announcer.refused(key, refusal);
      if (refusal.reason === 'daily-exhausted' && this.onDailyLimit === 'throw') {
        for (const waiter of queue.splice(0)) waiter.reject(this.dailyError(key, waiter.request, refusal.until));
        continue; // once more, to withdraw the claim
      }
      if (queue.length > 0) this.waiters.wakeLater(key, refusal.until);
      return;
    }
  }

  private dailyError(key: string, request: AcquireRequest, resetAt: number | null): DailyLimitError {
    return DailyLimitError.notSent(key, request, resetAt, this.clock.now());
  }

  /**
   * Runs a bucket change without holding up the request it belongs to. One that fails (Redis
   * unreachable past ioredis's retries) leaves its slot counted: safe, if slower.
   */
  private background(key: string, work: Promise<void>): void {
    work.catch((error: unknown) => {
      this.lastError = error;
      this.waiters.pump(key);
    });
  }

  private answer(answer: { status: number; rateLimit: RateLimitSnapshot }): BucketAnswer {
    return { ...answer, receivedAt: this.clock.now() };
  }

  private bucket(key: string): SharedBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new SharedBucket({ redis: this.options.redis, key: `${this.options.prefix}:bucket:${key}`, name: key, owner: this.owner, alivePrefix: this.alivePrefix, channel: this.channel });
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
