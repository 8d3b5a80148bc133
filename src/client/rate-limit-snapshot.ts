import { type PolicyWindow, parseRateLimitPolicy } from '../service/index.js';

/** Response headers as undici returns them (lower-case names). */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * What one response said about its rate-limit bucket. Every field is optional: unthrottled
 * endpoints send none, 401s send none, and only 429s carry `type` and `retryAfterSeconds`.
 * Resets are epoch seconds on the service's clock, as sent.
 */
export interface RateLimitSnapshot {
  readonly limit?: number;
  readonly remaining?: number;
  readonly resetEpochS?: number;
  readonly dailyLimit?: number;
  readonly dailyRemaining?: number;
  readonly dailyResetEpochS?: number;
  /** `tier`, `fallback`, `model`, `static`, or an unknown value kept as sent. */
  readonly source?: string;
  /** `X-RateLimit-Policy` windows, shortest first. */
  readonly windows: readonly PolicyWindow[];
  /** 429 only: `minute`, `daily`, `key-creation`, `ip-not-allowed`. */
  readonly type?: string;
  /** 429 only: seconds until the rejecting window frees up. */
  readonly retryAfterSeconds?: number;
}

/** True when the response carried any rate-limit information. */
export function hasRateLimitInfo(snapshot: RateLimitSnapshot): boolean {
  return snapshot.limit !== undefined || snapshot.windows.length > 0 || snapshot.dailyLimit !== undefined;
}

/** Reads the `X-RateLimit-*` and `Retry-After` headers of a response. */
export function readRateLimitSnapshot(headers: ResponseHeaders): RateLimitSnapshot {
  const snapshot: { -readonly [K in keyof RateLimitSnapshot]: RateLimitSnapshot[K] } = {
    windows: parseRateLimitPolicy(header(headers, 'x-ratelimit-policy')).sort((a, b) => a.windowSeconds - b.windowSeconds),
  };
  setNumber(snapshot, 'limit', header(headers, 'x-ratelimit-limit'));
  setNumber(snapshot, 'remaining', header(headers, 'x-ratelimit-remaining'));
  setNumber(snapshot, 'resetEpochS', header(headers, 'x-ratelimit-reset'));
  setNumber(snapshot, 'dailyLimit', header(headers, 'x-ratelimit-daily-limit'));
  setNumber(snapshot, 'dailyRemaining', header(headers, 'x-ratelimit-daily-remaining'));
  setNumber(snapshot, 'dailyResetEpochS', header(headers, 'x-ratelimit-daily-reset'));
  const source = header(headers, 'x-ratelimit-source');
  if (source) snapshot.source = source.trim().toLowerCase();
  const type = header(headers, 'x-ratelimit-type');
  if (type) snapshot.type = type.trim().toLowerCase();
  const retryAfter = readRetryAfter(header(headers, 'retry-after'));
  if (retryAfter !== undefined) snapshot.retryAfterSeconds = retryAfter;
  return snapshot;
}

/**
 * `Retry-After` as seconds: an integer (the spec's form) or an HTTP date, which is read
 * against the wall clock because that is the only clock a date can refer to.
 */
function readRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function setNumber<K extends 'limit' | 'remaining' | 'resetEpochS' | 'dailyLimit' | 'dailyRemaining' | 'dailyResetEpochS'>(
  target: { [P in K]?: number },
  key: K,
  value: string | undefined,
): void {
  if (value === undefined || value.trim() === '') return;
  const n = Number(value.trim());
  if (Number.isFinite(n)) target[key] = n;
}
