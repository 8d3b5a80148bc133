import { MINUTE_WINDOW_S } from '../service/index.js';
import { hasRateLimitInfo, type RateLimitSnapshot } from './rate-limit-snapshot.js';

/** A slot reserved for one request in flight. */
export interface BucketTicket {
  /** Window generation the slot was taken in (a request may land in the next one). */
  readonly epoch: number;
  /** This request is the one sent to learn the bucket's limits. */
  readonly learning: boolean;
  /** This request opens a window; the rest of the window waits for its answer. */
  readonly opener?: boolean;
}

/** Why a request cannot go now, and until when (null: until another request settles). */
export type Refusal = {
  readonly reason: 'learning' | 'window' | 'daily-pending' | 'daily-exhausted';
  readonly until: number | null;
};

export type Reservation = { readonly ok: true; readonly ticket: BucketTicket } | ({ readonly ok: false } & Refusal);

/** An answer to a request of this bucket. */
export interface BucketAnswer {
  readonly status: number;
  readonly rateLimit: RateLimitSnapshot;
  /** Clock time the answer arrived (an upper bound of when the server counted it). */
  readonly receivedAt: number;
}

/** What an answer taught the bucket, for the governor's events. */
export interface BucketNews {
  learned: boolean;
  throttledUntil?: number;
  dailyResetAt?: number;
}

interface DailyState {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * A bucket's whole state as JSON-safe data, so that a store shared by several processes can
 * keep one bucket for all of them (infinite times are null).
 */
export interface BucketState {
  readonly state: GovernorBucket['state'];
  readonly limit: number;
  readonly windowMs: number;
  readonly daily: { readonly limit: number; readonly remaining: number; readonly resetAt: number | null } | null;
  readonly epoch: number;
  readonly used: number;
  readonly carried: number;
  readonly inFlight: number;
  readonly windowEnd: number | null;
  readonly serverResetMs: number | null;
  readonly previousResetMs: number | null;
  readonly blockedUntil: number;
  readonly openerEpoch: number | null;
}

/**
 * A client-side mirror of one server bucket's fixed window (docs/deapi-contract.md#rate-limits: it opens on the
 * first request and runs W from there). Every request in flight holds a slot; slots are
 * counted per window generation, and a slot taken just before a window ended is carried into
 * the next one until its answer says which window counted it. The window end is the smaller
 * of two upper bounds of the server's: `X-RateLimit-Reset` (a whole second, rounded up) and
 * the arrival of the window's first answer plus W. Times are clock milliseconds.
 */
export class GovernorBucket {
  state: 'unknown' | 'learning' | 'known' | 'unthrottled' = 'unknown';
  limit = 0;
  windowMs = MINUTE_WINDOW_S * 1000;
  daily: DailyState | null = null;
  private epoch = 0;
  private used = 0;
  private carried = 0;
  private inFlight = 0;
  private windowEnd: number | null = null;
  private serverResetMs: number | null = null;
  private previousResetMs: number | null = null;
  private blockedUntil = 0;
  /** Window generation whose opening request is still unanswered. */
  private openerEpoch: number | null = null;

  constructor(readonly key: string) {}

  /** This bucket's state as plain data ({@link GovernorBucket.fromState} restores it). */
  toState(): BucketState {
    const daily = this.daily === null ? null : { ...this.daily, resetAt: Number.isFinite(this.daily.resetAt) ? this.daily.resetAt : null };
    return {
      state: this.state,
      limit: this.limit,
      windowMs: this.windowMs,
      daily,
      epoch: this.epoch,
      used: this.used,
      carried: this.carried,
      inFlight: this.inFlight,
      windowEnd: this.windowEnd,
      serverResetMs: this.serverResetMs,
      previousResetMs: this.previousResetMs,
      blockedUntil: this.blockedUntil,
      openerEpoch: this.openerEpoch,
    };
  }

  /** A bucket in the state `toState` gave. */
  static fromState(key: string, state: BucketState): GovernorBucket {
    const bucket = new GovernorBucket(key);
    bucket.state = state.state;
    bucket.limit = state.limit;
    bucket.windowMs = state.windowMs;
    bucket.daily = state.daily === null ? null : { ...state.daily, resetAt: state.daily.resetAt ?? Number.POSITIVE_INFINITY };
    bucket.epoch = state.epoch;
    bucket.used = state.used;
    bucket.carried = state.carried;
    bucket.inFlight = state.inFlight;
    bucket.windowEnd = state.windowEnd;
    bucket.serverResetMs = state.serverResetMs;
    bucket.previousResetMs = state.previousResetMs;
    bucket.blockedUntil = state.blockedUntil;
    bucket.openerEpoch = state.openerEpoch;
    return bucket;
  }

  /** Takes a slot if the window has room, or says what to wait for. */
  reserve(now: number): Reservation {
    if (this.state === 'unthrottled') return this.take(false);
    if (this.state === 'unknown') {
      // One request per bucket goes out to learn the limits; the rest wait for its answer.
      this.state = 'learning';
      return this.take(true);
    }
    if (this.state === 'learning') return { ok: false, reason: 'learning', until: null };
    this.expire(now);
    if (this.daily) {
      if (now >= this.daily.resetAt) this.daily = { ...this.daily, remaining: this.daily.limit, resetAt: Number.POSITIVE_INFINITY };
      if (this.daily.remaining - this.inFlight <= 0) {
        return this.inFlight > 0
          ? { ok: false, reason: 'daily-pending', until: null }
          : { ok: false, reason: 'daily-exhausted', until: this.daily.resetAt };
      }
    }
    if (now < this.blockedUntil) return { ok: false, reason: 'window', until: this.blockedUntil };
    // One request opens each window and the rest follow its answer: then the window's end is
    // known to within one round trip instead of to the next whole second of X-RateLimit-Reset.
    if (this.openerEpoch === this.epoch) return { ok: false, reason: 'learning', until: null };
    if (this.used >= this.limit) {
      // A window end already passed means its answers are still out: wait for one of them.
      return { ok: false, reason: 'window', until: this.windowEnd !== null && this.windowEnd > now ? this.windowEnd : null };
    }
    const opener = this.serverResetMs === null && this.used === 0 && this.carried === 0;
    if (opener) this.openerEpoch = this.epoch;
    this.used++;
    // Provisional until the first answer: the server's window opens when it gets the request.
    this.windowEnd ??= now + this.windowMs;
    return this.take(false, opener);
  }

  /**
   * Requests this bucket would admit now without waiting: what is left of the current window
   * (the whole allowance when none is open), 0 while blocked, or while the window's opener or
   * the learning request is out; undefined while the limits are unknown, Infinity unthrottled.
   */
  room(now: number): number | undefined {
    if (this.state === 'unthrottled') return Number.POSITIVE_INFINITY;
    if (this.state !== 'known') return undefined;
    this.expire(now);
    if (now < this.blockedUntil || this.openerEpoch === this.epoch) return 0;
    const left = this.limit - this.used;
    return this.daily ? Math.max(0, Math.min(left, this.daily.remaining - this.inFlight)) : Math.max(0, left);
  }

  /** Records the answer to a request that held `ticket`. */
  settle(ticket: BucketTicket, answer: BucketAnswer): BucketNews {
    this.inFlight--;
    this.closeOpener(ticket);
    const news: BucketNews = { learned: false };
    const informative = hasRateLimitInfo(answer.rateLimit);
    if (this.state === 'unthrottled' && informative) {
      // The service started to limit this pool (a plan change): mirror it from now on.
      this.state = 'known';
      news.learned = true;
    } else if (ticket.learning) {
      if (informative) {
        this.state = 'known';
        news.learned = true;
      } else {
        // No headers on a success (or a validation refusal, which the limiter precedes): not throttled.
        const throttleFree = (answer.status >= 200 && answer.status < 300) || answer.status === 422;
        this.state = throttleFree ? 'unthrottled' : 'unknown';
      }
    }
    if (this.state !== 'known') return news;
    if (!informative) {
      // 401s never reach the limiter: the slot was not spent.
      this.release(ticket);
      return news;
    }
    if (this.learnLimits(answer.rateLimit)) news.learned = true;
    this.placeAnswer(ticket, answer);
    this.observeRefusal(answer, news);
    return news;
  }

  /**
   * Learns from an answer whose request held a slot in another bucket (the first answer that
   * revealed a per-model bucket). The request counted here, not there.
   */
  adopt(answer: BucketAnswer): BucketNews {
    const news: BucketNews = { learned: this.state !== 'known' };
    this.state = 'known';
    if (this.learnLimits(answer.rateLimit)) news.learned = true;
    this.expire(answer.receivedAt);
    const reset = resetMs(answer.rateLimit);
    if (reset !== undefined && (this.serverResetMs === null || reset > this.serverResetMs + this.windowMs / 2)) {
      this.nextWindow();
      this.noteWindow(reset, answer.receivedAt);
    }
    this.countServerUse(answer.rateLimit);
    this.observeRefusal(answer, news);
    return news;
  }

  /** The request got no answer; a slot it provably did not spend is given back. */
  abandon(ticket: BucketTicket, reachedService: boolean): void {
    this.inFlight--;
    this.closeOpener(ticket);
    if (ticket.learning && this.state === 'learning') this.state = 'unknown';
    if (this.state !== 'known') return;
    if (!reachedService) this.release(ticket);
    else if (ticket.epoch < this.epoch) this.carried = Math.max(0, this.carried - 1);
  }

  /** The request was counted in another bucket (a per-model one): its slot here is free again. */
  refund(ticket: BucketTicket): void {
    this.inFlight--;
    this.closeOpener(ticket);
    if (ticket.learning && this.state === 'learning') this.state = 'unknown';
    if (this.state === 'known') this.release(ticket);
  }

  /** True when nothing is in flight (tests and idle checks). */
  get idle(): boolean {
    return this.inFlight === 0;
  }

  private take(learning: boolean, opener = false): Reservation {
    this.inFlight++;
    return { ok: true, ticket: opener ? { epoch: this.epoch, learning, opener } : { epoch: this.epoch, learning } };
  }

  private closeOpener(ticket: BucketTicket): void {
    if (ticket.opener && this.openerEpoch === ticket.epoch) this.openerEpoch = null;
  }

  private release(ticket: BucketTicket): void {
    // A learning request never took a counted slot: its count arrives with the headers.
    if (ticket.learning) return;
    if (ticket.epoch < this.epoch) {
      if (this.carried > 0) {
        this.carried--;
        this.used = Math.max(0, this.used - 1);
      }
    } else this.used = Math.max(0, this.used - 1);
  }

  /** Starts the next window generation once the mirrored window has ended. */
  private expire(now: number): void {
    if (this.windowEnd === null || now < this.windowEnd) return;
    // Before any answer the end is only a lower bound (the server opened it later): wait for one.
    if (this.serverResetMs === null && this.inFlight > 0) return;
    this.previousResetMs = this.serverResetMs ?? this.windowEnd;
    this.nextWindow();
    this.windowEnd = null;
  }

  /**
   * A new window begins (a new epoch): requests still in flight may be counted by the server in
   * it, so they are carried into it as used; its server reset is not known yet.
   */
  private nextWindow(): void {
    this.epoch++;
    this.carried = this.inFlight;
    this.used = this.inFlight;
    this.serverResetMs = null;
  }

  /** Decides which window counted an answered request, and corrects the mirror. */
  private placeAnswer(ticket: BucketTicket, answer: BucketAnswer): void {
    const reset = resetMs(answer.rateLimit);
    if (reset === undefined) return;
    const half = this.windowMs / 2;
    const current = this.serverResetMs;
    if (ticket.epoch < this.epoch) {
      if (this.carried > 0) this.carried--;
      const inCurrent = current !== null ? Math.abs(reset - current) < half : this.previousResetMs === null || reset > this.previousResetMs + half;
      if (!inCurrent) {
        this.used = Math.max(0, this.used - 1);
        return;
      }
    } else if (current !== null && Math.abs(reset - current) >= half) {
      if (reset < current) return; // an answer about a window that is over
      // The server moved on to a newer window than the mirror: adopt its view.
      this.nextWindow();
    }
    this.noteWindow(reset, answer.receivedAt);
    this.countServerUse(answer.rateLimit);
  }

  /** Both bounds are upper bounds of the server's window end, so the smaller one wins. */
  private noteWindow(reset: number, receivedAt: number): void {
    const bound = Math.min(reset, receivedAt + this.windowMs);
    this.windowEnd = this.serverResetMs === null || this.windowEnd === null ? bound : Math.min(this.windowEnd, bound);
    this.serverResetMs = reset;
  }

  /** The server's count can be higher than ours when other clients spend the same account. */
  private countServerUse(snapshot: RateLimitSnapshot): void {
    if (snapshot.remaining !== undefined && this.limit > 0) this.used = Math.max(this.used, this.limit - snapshot.remaining);
  }

  private observeRefusal(answer: BucketAnswer, news: BucketNews): void {
    const snap = answer.rateLimit;
    if (snap.dailyLimit !== undefined && snap.dailyRemaining !== undefined) {
      const resetAt = snap.dailyResetEpochS !== undefined ? snap.dailyResetEpochS * 1000 : (this.daily?.resetAt ?? Number.POSITIVE_INFINITY);
      const sameDay = this.daily !== null && Math.abs(this.daily.resetAt - resetAt) < 1000;
      const remaining = sameDay ? Math.min(this.daily!.remaining, snap.dailyRemaining) : snap.dailyRemaining;
      this.daily = { limit: snap.dailyLimit, remaining, resetAt };
    }
    if (answer.status !== 429) return;
    const waitMs = (snap.retryAfterSeconds ?? 0) * 1000;
    if (snap.type === 'daily') {
      const resetAt = snap.dailyResetEpochS !== undefined ? snap.dailyResetEpochS * 1000 : answer.receivedAt + waitMs;
      this.daily = { limit: snap.dailyLimit ?? this.daily?.limit ?? 0, remaining: 0, resetAt };
      news.dailyResetAt = resetAt;
      return;
    }
    const until = Math.max(answer.receivedAt + waitMs, resetMs(snap) ?? 0);
    this.blockedUntil = Math.max(this.blockedUntil, until);
    this.used = Math.max(this.used, this.limit);
    news.throttledUntil = this.blockedUntil;
  }

  /** Reads limit and window length; true when they changed. */
  private learnLimits(snapshot: RateLimitSnapshot): boolean {
    const limit = snapshot.limit ?? snapshot.windows[0]?.limit;
    const window = snapshot.windows.find((w) => w.limit === limit) ?? snapshot.windows[0];
    const windowMs = window ? window.windowSeconds * 1000 : this.windowMs;
    const changed = limit !== undefined && (limit !== this.limit || windowMs !== this.windowMs);
    if (limit !== undefined) this.limit = limit;
    this.windowMs = windowMs;
    return changed;
  }
}

function resetMs(snapshot: RateLimitSnapshot): number | undefined {
  return snapshot.resetEpochS === undefined ? undefined : snapshot.resetEpochS * 1000;
}
