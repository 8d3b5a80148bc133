/**
 * The published rate-limit tiers of the public docs (docs/deapi-contract.md#rate-limits, "Rate limits,
 * Basic" and "Rate limits, Premium"), as `rate_limits` entries. `tier: basic | premium` in
 * the config starts from these; every `rate_limits` key the config sets still wins.
 *
 * Basic (no payment yet), requests per minute / per day:
 *   images/generations 3/100, images/edits 1/15, images/ocr 5/50,
 *   images/background-removals 5/100, images/upscales 5/100,
 *   videos/generations and videos/animations 1/15 (LTX; MiniMax 1/3, a per-model rate),
 *   videos/audio-syncs, videos/replacements, videos/upscales 1/15,
 *   audio/speech 5/300, audio/music 1/15, audio/transcriptions 1/10, embeddings 10/500,
 *   every price endpoint 50/200, job status 50/200; balance and models unlimited.
 *   Not published: videos/descriptions, videos/background-removals (they get `fallback`,
 *   X-RateLimit-Source: fallback), prompt enhancement, payments and key reads (their
 *   `enhancement` and `fallback` rates stay at the emulator's defaults).
 * Premium (any payment): 300 per minute on every endpoint, no daily limit.
 */
import { getTask, TASK_IDS, type TaskId } from '../../service/index.js';
import type { EmulatorConfig, RateConfig } from '../types.js';

export type RateTier = 'basic' | 'premium';

type Limits = EmulatorConfig['rate_limits'];

/** The `rate_limits` keys a tier sets. */
export type TierRates = Partial<Pick<Limits, 'generation' | 'endpoints' | 'models' | 'fallback' | 'quote' | 'enhancement' | 'jobs_status'>>;

const rate = (rpm: number, rpd: number | null): RateConfig => ({ rpm, rpd });

/**
 * The basic tier's published rate of each task's submission pool (its `pool` in the
 * catalogue); null where the docs publish none (the pool keeps the emulator's default).
 */
const BASIC_TASK_RATES: Readonly<Record<TaskId, RateConfig | null>> = {
  'image.generate': rate(3, 100),
  'image.edit': rate(1, 15),
  'image.ocr': rate(5, 50),
  'image.remove-background': rate(5, 100),
  'image.upscale': rate(5, 100),
  'video.generate': rate(1, 15),
  'video.animate': rate(1, 15),
  'video.audio-sync': rate(1, 15),
  'video.replace': rate(1, 15),
  'video.upscale': rate(1, 15),
  'video.describe': null,
  'video.remove-background': null,
  'audio.speech': rate(5, 300),
  'audio.music': rate(1, 15),
  'audio.transcribe': rate(1, 10),
  'text.embed': rate(10, 500),
  'prompt.enhance': null,
};

const BASIC: TierRates = {
  generation: null,
  endpoints: Object.fromEntries(
    TASK_IDS.flatMap((task) => {
      const published = BASIC_TASK_RATES[task];
      return published === null ? [] : [[getTask(task).pool, published] as const];
    }),
  ),
  models: { MiniMaxH3_33B_Turbo_INT8: rate(1, 3) },
  quote: rate(50, 200),
  jobs_status: rate(50, 200),
};

const PREMIUM_RATE = rate(300, null);

const PREMIUM: TierRates = {
  generation: PREMIUM_RATE,
  endpoints: {},
  models: {},
  fallback: PREMIUM_RATE,
  quote: PREMIUM_RATE,
  enhancement: PREMIUM_RATE,
  jobs_status: PREMIUM_RATE,
};

/** The rates a tier publishes. */
export function tierRates(tier: RateTier): TierRates {
  return tier === 'basic' ? BASIC : PREMIUM;
}

/**
 * `limits` with the tier's rates under what the config set itself: `explicit` names the
 * `rate_limits` keys the config gave (their values, defaults applied, are in `limits`);
 * per-endpoint and per-model maps merge entry by entry, the config's entries winning.
 */
export function applyTier(limits: Limits, tier: RateTier, explicit: ReadonlySet<string>): Limits {
  const rates = tierRates(tier);
  const pick = <K extends 'generation' | 'fallback' | 'quote' | 'enhancement' | 'jobs_status'>(key: K): Limits[K] =>
    explicit.has(key) || rates[key] === undefined ? limits[key] : rates[key];
  return {
    ...limits,
    generation: pick('generation'),
    fallback: pick('fallback'),
    quote: pick('quote'),
    enhancement: pick('enhancement'),
    jobs_status: pick('jobs_status'),
    endpoints: { ...rates.endpoints, ...limits.endpoints },
    models: { ...rates.models, ...limits.models },
  };
}
