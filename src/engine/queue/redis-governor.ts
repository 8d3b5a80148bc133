/**
 * A rate governor whose buckets live in Redis, shared by every process that spends the same
 * account (`deflow run --governor`, and the workers of `--queue`). Each bucket is the client's
 * own window mirror ({@link SharedBucket}); this class does what the in-process governor
 * does around it: a FIFO of waiters per bucket in this process, per-model routes, the daily
 * limit, and the governor's events. A process learns what others learned: every answer that
 * teaches a bucket something is published, and the other processes emit it as their own
 * event (so a coordinator reports the 429s its workers met, and each sizes its concurrency
 * from limits any of them learned). It also runs the engine's intent hook between a permit
 * and the POST (SubmitGate).
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { AcquireRequest, BucketAnswer, BucketNews, BucketTicket, Governor, GovernorBucket, GovernorBucketView, GovernorEvents, GovernorPermit, RateLimitSnapshot, Refusal } from '../../client/index.js';
import { DailyLimitError, hasRateLimitInfo } from '../../client/index.js';
import { type Clock, systemClock } from '../../common/index.js';
import type { SubmitGate } from '../run/index.js';
import { type MutableShared, SharedBucket, takeTicket } from './shared-bucket.js';

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

interface Waiter {
  readonly request: AcquireRequest;
  resolve(ticket: HeldTicket): void;
  reject(error: unknown): void;
}

/** A slot this process holds: the bucket's ticket and its id in the shared state. */
interface HeldTicket {
  readonly id: string;
  readonly ticket: BucketTicket;
}

/** What a process publishes after an answer taught a bucket something, or freed what others wait for. */
interface Message {
  readonly from: string;
  readonly bucket: string;
  readonly learned?: { readonly limit: number; readonly windowSeconds: number; readonly dailyLimit?: number };
  readonly throttledUntil?: number;
  readonly dailyResetAt?: number;
}

const NO_PERMIT: GovernorPermit = { bucket: null, settle: () => {}, abandon: () => {} };
/** Real ms between two looks at a bucket whose waiters wait for an answer (should a wake-up be lost). */
const ANSWER_POLL_MS = 250;
const MODEL_SEPARATOR = '#model:';

export class RedisGovernor extends EventEmitter<GovernorEvents> implements Governor, SubmitGate {
  readonly clock: Clock;
  /** This process's id in the shared state. */
  readonly owner = randomBytes(6).toString('hex');
  private readonly onDailyLimit: 'throw' | 'wait';
  private readonly buckets = new Map<string, SharedBucket>();
  private readonly queues = new Map<string, Waiter[]>();
  private readonly pumping = new Map<string, boolean>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, { due: number; controller: AbortController }>();
  private readonly pollTimers = new Map<string, NodeJS.Timeout>();
  private readonly routes = new Map<string, 'pool' | 'model'>();
  private readonly probes = new Map<string, Promise<void>>();
  private readonly hooks = new WeakMap<AbortSignal, () => Promise<void>>();
  private readonly dailyAnnounced = new Map<string, number>();
  private readonly throttleAnnounced = new Map<string, number | null>();
  private readonly channel: string;
  private readonly alivePrefix: string;
  private readonly heartbeat: NodeJS.Timeout;
  private heartbeats = 0;
  private readonly skewMs: number;
  /** The last bucket change that could not be written (kept for diagnostics). */
  lastError: unknown;
  private closed = false;

  constructor(private readonly options: RedisGovernorOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.onDailyLimit = options.onDailyLimit ?? 'throw';
    this.skewMs = options.skewMarginMs ?? 100 + 5 / this.clock.realPerVirtual;
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
    const permit = await this.acquireSlot(request);
    const hook = request.signal === undefined ? undefined : this.hooks.get(request.signal);
    if (hook === undefined) return permit;
    this.hooks.delete(request.signal!);
    try {
      await hook();
    } catch (error) {
      permit.abandon(false);
      throw error;
    }
    return permit;
  }

  arm(signal: AbortSignal, hook: () => Promise<void>): void {
    this.hooks.set(signal, hook);
  }

  disarm(signal: AbortSignal): void {
    this.hooks.delete(signal);
  }

  describe(): GovernorBucketView[] {
    return [...this.buckets.entries()].map(([key, shared]) => {
      const b = shared.view();
      return { bucket: key, state: b.state, limit: b.limit, windowSeconds: b.windowMs / 1000, ...(b.daily ? { dailyRemaining: b.daily.remaining } : {}) };
    });
  }

  /** Stops the liveness renewals and the timers; the connections stay the caller's. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const timer of this.pollTimers.values()) clearTimeout(timer);
    for (const { controller } of this.timers.values()) controller.abort();
    this.options.subscriber.off('message', this.onMessage);
    await this.options.subscriber.unsubscribe(this.channel).catch(() => {});
    await this.options.redis.del(`${this.alivePrefix}${this.owner}`).catch(() => {});
  }

  private async acquireSlot(request: AcquireRequest): Promise<GovernorPermit> {
    const { pool, model } = request;
    if (pool === null) return NO_PERMIT;
    for (;;) {
      request.signal?.throwIfAborted();
      const routeKey = model ? `${pool}\u0000${model}` : undefined;
      const route = routeKey === undefined ? 'pool' : this.routes.get(routeKey);
      if (route === 'model') return this.permit(bucketKey(pool, model), await this.enqueue(bucketKey(pool, model), request));
      if (route === 'pool') return this.permit(pool, await this.enqueue(pool, request));
      const pending = this.probes.get(routeKey!);
      if (pending !== undefined) {
        await abortable(pending, request.signal);
        continue;
      }
      // This request finds out whether the model has its own bucket; others for it wait.
      let done!: () => void;
      this.probes.set(routeKey!, new Promise<void>((resolve) => (done = resolve)));
      const finish = (): void => {
        this.probes.delete(routeKey!);
        done();
      };
      try {
        const ticket = await this.enqueue(pool, request);
        return this.probePermit(pool, model!, routeKey!, ticket, finish);
      } catch (error) {
        finish();
        throw error;
      }
    }
  }

  private permit(key: string, held: HeldTicket): GovernorPermit {
    let open = true;
    return {
      bucket: key,
      settle: (answer) => {
        if (!open) return;
        open = false;
        this.background(key, this.settle(key, held, this.answer(answer)));
      },
      abandon: (reachedService) => {
        if (!open) return;
        open = false;
        this.background(
          key,
          this.change(key, (bucket, shared) => {
            const ticket = takeTicket(shared, held.id);
            if (ticket !== undefined) bucket.abandon(ticket, reachedService);
            return {};
          }),
        );
      },
    };
  }

  private probePermit(pool: string, model: string, routeKey: string, held: HeldTicket, finish: () => void): GovernorPermit {
    const inner = this.permit(pool, held);
    let open = true;
    return {
      bucket: pool,
      settle: (answer) => {
        if (!open) return;
        open = false;
        if (answer.rateLimit.source === 'model') {
          this.routes.set(routeKey, 'model');
          const key = bucketKey(pool, model);
          const received = this.answer(answer);
          const work = this.change(pool, (bucket, shared) => {
            const ticket = takeTicket(shared, held.id);
            if (ticket !== undefined) bucket.refund(ticket);
            return {};
          }).then(() => this.change(key, (bucket) => bucket.adopt(received)));
          this.background(key, work.finally(finish));
          return;
        }
        if (hasRateLimitInfo(answer.rateLimit) || (answer.status >= 200 && answer.status < 300) || answer.status === 422) this.routes.set(routeKey, 'pool');
        inner.settle(answer);
        finish();
      },
      abandon: (reachedService) => {
        if (!open) return;
        open = false;
        inner.abandon(reachedService);
        finish();
      },
    };
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
      const message = this.message(key, bucket, result);
      if (message !== null || state.waiting) {
        state.publish = JSON.stringify(message ?? { from: this.owner, bucket: key });
        state.waiting = false;
      }
      return result;
    });
    this.report(key, news);
    this.pump(key);
  }

  private message(key: string, bucket: GovernorBucket, news: Partial<BucketNews>): Message | null {
    if (!news.learned && news.throttledUntil === undefined && news.dailyResetAt === undefined) return null;
    return {
      from: this.owner,
      bucket: key,
      ...(news.learned ? { learned: { limit: bucket.limit, windowSeconds: bucket.windowMs / 1000, ...(bucket.daily ? { dailyLimit: bucket.daily.limit } : {}) } } : {}),
      ...(news.throttledUntil === undefined ? {} : { throttledUntil: news.throttledUntil }),
      ...(news.dailyResetAt === undefined ? {} : { dailyResetAt: news.dailyResetAt }),
    };
  }

  private readonly onMessage = (channel: string, text: string): void => {
    if (channel !== this.channel || this.closed) return;
    let messages: Message[];
    try {
      const parsed = JSON.parse(text) as Message | Message[];
      messages = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      return;
    }
    for (const message of messages) {
      if (message.from === this.owner) continue;
      if (message.learned) this.emitLearned(message.bucket, message.learned);
      if (message.throttledUntil !== undefined) this.emit('throttled', { bucket: message.bucket, ...split(message.bucket), until: message.throttledUntil, reason: '429' });
      if (message.dailyResetAt !== undefined) this.announceDaily(message.bucket, message.dailyResetAt);
      if (this.queues.get(message.bucket)?.length) this.pump(message.bucket);
    }
  };

  private enqueue(key: string, request: AcquireRequest): Promise<HeldTicket> {
    const queue = this.queue(key);
    return new Promise<HeldTicket>((resolve, reject) => {
      const signal = request.signal;
      const onAbort = (): void => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        request,
        resolve: (ticket) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(ticket);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      if (queue.length === 1) this.pump(key);
    });
  }

  /** Hands slots to this process's waiters in arrival order until the bucket refuses. */
  private pump(key: string): void {
    if (this.closed) return;
    if (this.pumping.get(key)) {
      this.again.add(key);
      return;
    }
    this.pumping.set(key, true);
    this.drain(key)
      .catch((error: unknown) => {
        for (const waiter of this.queue(key).splice(0)) waiter.reject(error);
      })
      .finally(() => {
        this.pumping.set(key, false);
        if (this.again.delete(key)) this.pump(key);
      });
  }

  private async drain(key: string): Promise<void> {
    const queue = this.queue(key);
    const shared = this.bucket(key);
    while (queue.length > 0) {
      // As if a little earlier: a window end another process saw may be a little ahead of ours.
      const now = this.clock.now() - this.skewMs;
      const wanted = queue.length;
      // Slots for every waiter at once, as far as the bucket has room: one write, not one each.
      const outcome = await shared.apply((bucket, state) => {
        const held: HeldTicket[] = [];
        for (let i = 0; i < wanted; i++) {
          const reservation = bucket.reserve(now);
          if (reservation.ok) {
            held.push({ id: shared.addTicket(state, reservation.ticket), ticket: reservation.ticket });
            continue;
          }
          if (reservation.until === null) state.waiting = true;
          // Every process must learn a used-up daily window, however this one found out (the
          // coordinator of a queue run defers the pool on it).
          if (reservation.reason === 'daily-exhausted' && reservation.until !== null) state.publish = JSON.stringify({ from: this.owner, bucket: key, dailyResetAt: reservation.until } satisfies Message);
          return { held, refusal: { reason: reservation.reason, until: reservation.until } satisfies Refusal };
        }
        return { held, refusal: null };
      });
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
      this.noteRefusal(key, refusal);
      if (refusal.reason === 'daily-exhausted' && this.onDailyLimit === 'throw') {
        for (const waiter of queue.splice(0)) waiter.reject(this.dailyError(key, waiter.request, refusal.until));
        return;
      }
      if (queue.length > 0) this.wakeLater(key, refusal.until);
      return;
    }
  }

  /** Looks again at `until` (clock ms), or soon when the wait is for an answer. */
  private wakeLater(key: string, until: number | null): void {
    if (until === null || !Number.isFinite(until)) {
      if (this.pollTimers.has(key)) return;
      const timer = setTimeout(() => {
        this.pollTimers.delete(key);
        this.pump(key);
      }, ANSWER_POLL_MS);
      timer.unref();
      this.pollTimers.set(key, timer);
      return;
    }
    const existing = this.timers.get(key);
    if (existing && existing.due <= until) return;
    existing?.controller.abort();
    const controller = new AbortController();
    this.timers.set(key, { due: until, controller });
    this.clock.sleep(Math.max(0, until + this.skewMs - this.clock.now()), controller.signal).then(
      () => {
        if (this.timers.get(key)?.controller === controller) this.timers.delete(key);
        this.pump(key);
      },
      () => {},
    );
  }

  private noteRefusal(key: string, refusal: Refusal): void {
    if (refusal.reason === 'window') {
      if (this.throttleAnnounced.get(key) === refusal.until) return;
      this.throttleAnnounced.set(key, refusal.until);
      this.emit('throttled', { bucket: key, ...split(key), until: refusal.until, reason: 'window' });
    } else if (refusal.reason === 'daily-exhausted' && refusal.until !== null) {
      this.announceDaily(key, refusal.until);
    }
  }

  private report(key: string, news: Partial<BucketNews>): void {
    if (news.learned) {
      const b = this.bucket(key).view();
      this.emitLearned(key, { limit: b.limit, windowSeconds: b.windowMs / 1000, ...(b.daily ? { dailyLimit: b.daily.limit } : {}) });
    }
    if (news.throttledUntil !== undefined) this.emit('throttled', { bucket: key, ...split(key), until: news.throttledUntil, reason: '429' });
    if (news.dailyResetAt !== undefined) this.announceDaily(key, news.dailyResetAt);
  }

  private emitLearned(key: string, learned: NonNullable<Message['learned']>): void {
    this.emit('limitLearned', { bucket: key, ...split(key), limit: learned.limit, windowSeconds: learned.windowSeconds, ...(learned.dailyLimit === undefined ? {} : { dailyLimit: learned.dailyLimit }) });
  }

  private announceDaily(key: string, resetAt: number): void {
    if (this.dailyAnnounced.get(key) === resetAt) return;
    this.dailyAnnounced.set(key, resetAt);
    this.emit('dailyExhausted', { bucket: key, ...split(key), resetAt });
  }

  private dailyError(key: string, request: AcquireRequest, resetAt: number | null): DailyLimitError {
    const known = resetAt !== null && Number.isFinite(resetAt);
    const when = known ? ` until ${new Date(resetAt).toISOString()}` : '';
    return new DailyLimitError({
      status: 429,
      serviceMessage: `not sent: the daily limit of the "${key}" rate-limit bucket is used up${when}`,
      method: request.method,
      path: request.path,
      retryAfterSeconds: known ? Math.max(0, Math.ceil((resetAt - this.clock.now()) / 1000)) : undefined,
      resetAt: known ? resetAt : undefined,
    });
  }

  /**
   * Runs a bucket change without holding up the request it belongs to. One that fails (Redis
   * unreachable past ioredis's retries) leaves its slot counted: safe, if slower.
   */
  private background(key: string, work: Promise<void>): void {
    work.catch((error: unknown) => {
      this.lastError = error;
      this.pump(key);
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

  private queue(key: string): Waiter[] {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }
}

function bucketKey(pool: string, model: string | undefined): string {
  return model ? `${pool}${MODEL_SEPARATOR}${model}` : pool;
}

function split(key: string): { pool: string; model?: string } {
  const at = key.indexOf(MODEL_SEPARATOR);
  return at < 0 ? { pool: key } : { pool: key.slice(0, at), model: key.slice(at + MODEL_SEPARATOR.length) };
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}
