/** Rate-limit header names (docs/deapi-contract.md#rate-limits). */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  dailyLimit: 'X-RateLimit-Daily-Limit',
  dailyRemaining: 'X-RateLimit-Daily-Remaining',
  reset: 'X-RateLimit-Reset',
  dailyReset: 'X-RateLimit-Daily-Reset',
  source: 'X-RateLimit-Source',
  policy: 'X-RateLimit-Policy',
  /** Only on 429. */
  type: 'X-RateLimit-Type',
  /** Only on 429: integer seconds until the rejecting window frees up. */
  retryAfter: 'Retry-After',
} as const;

/** `X-RateLimit-Source` values. */
export const RATE_LIMIT_SOURCES = ['tier', 'fallback', 'model', 'static'] as const;
export type RateLimitSource = (typeof RATE_LIMIT_SOURCES)[number];

/** `X-RateLimit-Type` values (429 only). */
export const RATE_LIMIT_TYPES = ['minute', 'daily', 'key-creation', 'ip-not-allowed'] as const;
export type RateLimitType = (typeof RATE_LIMIT_TYPES)[number];

/** Window lengths the spec fixes, in seconds. */
export const MINUTE_WINDOW_S = 60;
export const KEY_CREATION_WINDOW_S = 3_600;

/** One parsed element of `X-RateLimit-Policy` (`<limit>;w=<seconds>`). */
export interface PolicyWindow {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Parses `X-RateLimit-Policy`: comma-separated `<limit>;w=<seconds>` elements, with or without
 * spaces. Elements it cannot read are skipped.
 */
export function parseRateLimitPolicy(value: string | null | undefined): PolicyWindow[] {
  if (!value) return [];
  const windows: PolicyWindow[] = [];
  for (const element of value.split(',')) {
    const [limitPart, ...params] = element.trim().split(';');
    const limit = Number(limitPart?.trim());
    const w = params.map((p) => p.trim()).find((p) => p.startsWith('w='));
    const windowSeconds = w === undefined ? Number.NaN : Number(w.slice(2));
    if (Number.isFinite(limit) && Number.isFinite(windowSeconds) && windowSeconds > 0) {
      windows.push({ limit, windowSeconds });
    }
  }
  return windows;
}

/** Formats windows as `X-RateLimit-Policy` (`60;w=60, 1000;w=86400`). */
export function formatRateLimitPolicy(windows: readonly PolicyWindow[]): string {
  return windows.map((w) => `${w.limit};w=${w.windowSeconds}`).join(', ');
}
