/**
 * Fixed windows per bucket (docs/deapi-contract.md#rate-limits): a window opens on the first request into its
 * bucket — even one that is then refused — and runs its full length "from that second" on the
 * virtual clock (it starts at the whole second, so X-RateLimit-Reset and Daily-Reset are
 * exactly 60 and 86400 s after the second of the opening request); the next request after it
 * ends opens a new one. Only admitted requests use the allowance.
 * Node runs one request handler at a time, so check-and-count is exact.
 */
import type { Clock } from '../../common/index.js';
import { formatRateLimitPolicy, type RateLimitSource, type RateLimitType } from '../../service/index.js';

/** One window of a bucket: `limit` requests per `lengthMs` virtual ms. */
export interface WindowRule {
  readonly limit: number;
  readonly lengthMs: number;
}

/** A window as seen by one request. */
export interface WindowView {
  readonly limit: number;
  readonly lengthMs: number;
  /** Requests left after this one (never negative). */
  readonly remaining: number;
  /** Virtual epoch ms when the window ends. */
  readonly resetMs: number;
}

/** The limiter's answer to one request. */
export interface Admission {
  readonly allowed: boolean;
  /** Index of the refusing window (the longest exhausted one), or -1 when allowed. */
  readonly rejectedBy: number;
  readonly windows: readonly WindowView[];
  /** Whole seconds until the refusing window frees up (at least 1); 0 when allowed. */
  readonly retryAfterS: number;
}

interface WindowState {
  startMs: number;
  count: number;
}

/** Counts requests per bucket key. One instance per running emulator. */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #buckets = new Map<string, WindowState[]>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Opens any expired window of `key`, then checks every window. When all have room and
   * `consume` is true the request is counted in each.
   */
  admit(key: string, rules: readonly WindowRule[], consume = true): Admission {
    const now = this.#clock.now();
    const states = this.#open(key, rules, now);
    let rejectedBy = -1;
    rules.forEach((rule, i) => {
      if ((states[i]?.count ?? 0) >= rule.limit) rejectedBy = i;
    });
    const allowed = rejectedBy === -1;
    if (allowed && consume) for (const state of states) state.count++;
    const windows = rules.map((rule, i) => {
      const state = states[i] as WindowState;
      return { limit: rule.limit, lengthMs: rule.lengthMs, remaining: Math.max(0, rule.limit - state.count), resetMs: state.startMs + rule.lengthMs };
    });
    const refusing = windows[rejectedBy];
    const retryAfterS = refusing ? Math.max(1, Math.ceil((refusing.resetMs - now) / 1000)) : 0;
    return { allowed, rejectedBy, windows, retryAfterS };
  }

  /** Counts one request in `key` without checking (a key creation that succeeded). */
  record(key: string, rules: readonly WindowRule[]): Admission {
    const states = this.#open(key, rules, this.#clock.now());
    for (const state of states) state.count++;
    return this.admit(key, rules, false);
  }

  #open(key: string, rules: readonly WindowRule[], now: number): WindowState[] {
    let states = this.#buckets.get(key);
    const second = Math.floor(now / 1000) * 1000;
    if (!states || states.length !== rules.length) {
      states = rules.map(() => ({ startMs: second, count: 0 }));
      this.#buckets.set(key, states);
    }
    rules.forEach((rule, i) => {
      const state = states[i] as WindowState;
      if (now >= state.startMs + rule.lengthMs) {
        state.startMs = second;
        state.count = 0;
      }
    });
    return states;
  }
}

/**
 * The X-RateLimit-* headers of an admission. The first window is the per-minute (or hourly,
 * or per-address) one; a second window is the daily one and adds the Daily-* headers.
 * `refusedType` names the X-RateLimit-Type of a refusal; `retryAfterOffsetS` (the config's
 * `rate_limits.retry_after_offset_s`) moves its Retry-After away from the window's end.
 */
export function formatRateLimitHeaders(
  admission: Admission,
  source: RateLimitSource,
  refusedType?: RateLimitType,
  retryAfterOffsetS = 0,
): Record<string, string> {
  const [first, daily] = admission.windows;
  if (!first) return {};
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(first.limit),
    'X-RateLimit-Remaining': String(first.remaining),
    'X-RateLimit-Reset': String(Math.ceil(first.resetMs / 1000)),
    'X-RateLimit-Source': source,
    'X-RateLimit-Policy': formatRateLimitPolicy(admission.windows.map((w) => ({ limit: w.limit, windowSeconds: Math.round(w.lengthMs / 1000) }))),
  };
  if (daily) {
    headers['X-RateLimit-Daily-Limit'] = String(daily.limit);
    headers['X-RateLimit-Daily-Remaining'] = String(daily.remaining);
    headers['X-RateLimit-Daily-Reset'] = String(Math.ceil(daily.resetMs / 1000));
  }
  if (!admission.allowed) {
    headers['X-RateLimit-Type'] = refusedType ?? (admission.rejectedBy >= 1 ? 'daily' : 'minute');
    headers['Retry-After'] = String(Math.max(1, admission.retryAfterS + retryAfterOffsetS));
  }
  return headers;
}
