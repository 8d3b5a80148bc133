/**
 * Which bucket a request spends and where its rate comes from (docs/deapi-contract.md#rate-limits; config
 * `rate_limits`). Submissions spend their endpoint's pool (shared by the v1 twin) or, for a
 * recognised model with an override, that model's bucket; price endpoints share `quote`.
 */
import { ACCOUNT_POOL, type Endpoint, JOBS_STATUS_POOL, KEY_CREATION_POOL, KEY_CREATION_WINDOW_S, QUOTE_POOL } from '../../service/index.js';
import type { RateLimitSource, RateLimitType } from '../../service/index.js';
import type { WindowRule } from './rate-limiter.js';
import type { EmulatorConfig, ModelRegistry, RateConfig } from '../types.js';

/** The bucket of one request. */
export interface BucketChoice {
  readonly key: string;
  readonly rules: readonly WindowRule[];
  readonly source: RateLimitSource;
  /** X-RateLimit-Type of a refusal when it is not minute/daily. */
  readonly refusedType?: RateLimitType;
  /** Counted only when the request succeeds (key creation counts keys created). */
  readonly countOnSuccess?: boolean;
}

const HOUR_MS = KEY_CREATION_WINDOW_S * 1000;
const ENHANCEMENT_POOL = 'enhancement';

type Limits = EmulatorConfig['rate_limits'];

/** The bucket `endpoint` spends for a body naming `modelSlug`, or null when unthrottled. */
export function chooseBucket(endpoint: Endpoint, modelSlug: string | null, limits: Limits, models: ModelRegistry): BucketChoice | null {
  const pool = endpoint.pool;
  if (pool === null) return null;
  if (pool === KEY_CREATION_POOL) {
    return {
      key: pool,
      rules: [{ limit: limits.key_creation_per_hour, lengthMs: HOUR_MS }],
      source: 'static',
      refusedType: 'key-creation',
      countOnSuccess: true,
    };
  }
  if (pool === QUOTE_POOL || pool === JOBS_STATUS_POOL || pool === ENHANCEMENT_POOL) {
    return tierBucket(pool, limits[pool], 'tier', limits);
  }
  if (pool === ACCOUNT_POOL) return tierBucket(pool, limits.fallback, 'fallback', limits);
  const override = modelOverride(endpoint, modelSlug, limits, models);
  if (override) return override;
  if (Object.hasOwn(limits.endpoints, pool)) {
    const rate = limits.endpoints[pool] ?? null;
    // An explicit null means "no tier rate for this endpoint": the fallback applies.
    return rate ? tierBucket(pool, rate, 'tier', limits) : tierBucket(pool, limits.fallback, 'fallback', limits);
  }
  if (limits.generation) return tierBucket(pool, limits.generation, 'tier', limits);
  return tierBucket(pool, limits.fallback, 'fallback', limits);
}

/** The per-model bucket of a submission naming a recognised model with an override. */
function modelOverride(endpoint: Endpoint, modelSlug: string | null, limits: Limits, models: ModelRegistry): BucketChoice | null {
  if (endpoint.kind !== 'submit' || endpoint.task?.modelField !== 'model' || modelSlug === null) return null;
  if (!models.find(modelSlug) || !Object.hasOwn(limits.models, modelSlug)) return null;
  const rate = limits.models[modelSlug] ?? null;
  return rate ? tierBucket(`model:${modelSlug}`, rate, 'model', limits) : null;
}

function tierBucket(key: string, rate: RateConfig | null, source: RateLimitSource, limits: Limits): BucketChoice | null {
  if (!rate) return null;
  return { key, rules: windowRules(rate, limits), source };
}

/** The minute window, then the day window when the rate has a daily limit. */
export function windowRules(rate: RateConfig, limits: Pick<Limits, 'minute_window_s' | 'day_window_s'>): WindowRule[] {
  const rules: WindowRule[] = [{ limit: rate.rpm, lengthMs: limits.minute_window_s * 1000 }];
  if (rate.rpd !== null) rules.push({ limit: rate.rpd, lengthMs: limits.day_window_s * 1000 });
  return rules;
}

/** The single window of per-address refusals of an IP whitelist. */
export function ipRefusalRules(limits: Limits): WindowRule[] {
  return [{ limit: limits.ip_refusals_before_429, lengthMs: limits.minute_window_s * 1000 }];
}
