/**
 * Contracts between the emulator's HTTP layer (server, auth, rate limiter, account, config)
 * and its domain layer (request validation, prices, jobs, media, webhooks). Only types here.
 */
import type { Clock } from '../common/index.js';
import type { Endpoint } from '../service/index.js';
import type { ModelInfo } from '../service/index.js';
import type { MediaFamily } from '../service/index.js';

/** A file part of a multipart request, streamed to a temporary file by the HTTP layer. */
export interface UploadedFile {
  /** Form field name without a trailing `[]`. */
  readonly field: string;
  readonly filename: string;
  /** Temporary path on disk; the HTTP layer deletes it after the request. */
  readonly path: string;
  readonly size: number;
  /** The Content-Type the client declared (not trusted: content is sniffed). */
  readonly declaredType: string | null;
}

/**
 * A parsed request body, whatever its encoding. Values are raw: strings from forms, real
 * types from JSON. Empty form parts have already been dropped (treated as absent).
 */
export interface ParsedBody {
  readonly kind: 'json' | 'multipart' | 'urlencoded' | 'empty';
  readonly values: Readonly<Record<string, unknown>>;
  readonly files: Readonly<Record<string, readonly UploadedFile[]>>;
}

/** What the domain layer learned about an uploaded file from its content. */
export interface InspectedMedia {
  readonly family: MediaFamily | null;
  /** Extension file-type reports (`png`, `mp3`, `mp4`, …), or null when unknown. */
  readonly ext: string | null;
  readonly mime: string | null;
  readonly durationSeconds?: number;
  readonly width?: number;
  readonly height?: number;
  readonly hasVideo?: boolean;
  readonly hasAudio?: boolean;
}

/** An uploaded file that passed validation. */
export interface ValidFile extends UploadedFile {
  readonly media: InspectedMedia;
}

/** A request that passed validation: typed values, defaults applied, the chosen model. */
export interface ResolvedRequest {
  readonly endpoint: Endpoint;
  /** The model named by the request (null for endpoints without one). */
  readonly model: ModelInfo | null;
  /** Field values coerced to their catalogue types (booleans, numbers), defaults filled in. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly files: Readonly<Record<string, readonly ValidFile[]>>;
}

/** 422 errors keyed by field name, each an array of messages (docs/deapi-contract.md#errors). */
export type FieldErrors = Record<string, string[]>;

export type ValidationResult = { readonly ok: true; readonly request: ResolvedRequest } | { readonly ok: false; readonly errors: FieldErrors };

/** Read access to the model list the emulator serves. */
export interface ModelRegistry {
  list(): readonly ModelInfo[];
  find(slug: string): ModelInfo | undefined;
}

/** Options of request validation that come from the emulator config. */
export interface ValidationOptions {
  /** Accept `http:` webhook URLs (for local receivers in tests). The spec says HTTPS only. @default false */
  readonly allowHttpWebhooks: boolean;
  /** Accept `http:` webhook URLs whose host is a loopback or private address (the `live` profile). @default false */
  readonly allowPrivateHttpWebhooks?: boolean;
}

/** A job as the emulator stores it. */
export interface EmulatorJob {
  readonly requestId: string;
  readonly taskId: string;
  readonly endpointPath: string;
  readonly model: string | null;
  status: 'pending' | 'processing' | 'done' | 'error';
  progress: number;
  /** Virtual epoch ms. */
  readonly createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  readonly priceMicros: number;
  /** The key that submitted it (id), for spend accounting. */
  readonly keyId: number;
  /** A digest of the resolved parameters and file contents (lets tests spot duplicate submissions). */
  readonly paramsDigest: string;
  error: { code: string; message: string; reason: string; retryable: boolean; refunded: boolean } | null;
}

/** Hooks the job store calls into the account (charging on completion). */
export interface JobAccountHooks {
  /** The job finished `done`: charge its price. */
  charge(job: EmulatorJob): void;
  /** The job finished `error`: release what was reserved. */
  release(job: EmulatorJob): void;
}

/** Everything domain code needs from the running emulator. */
export interface EmulatorRuntime {
  readonly clock: Clock;
  /** Base URL of the emulator, for `result_url`s. */
  baseUrl(): string;
  /** Deterministic random in [0, 1) (seeded from the config). */
  random(): number;
}

/** One configured API key. */
export interface KeyConfig {
  readonly secret: string;
  readonly role: 'admin' | 'api';
  readonly name: string;
  readonly status: 'active' | 'revoked';
  /** ISO date-time or null (no expiry). */
  readonly expires_at: string | null;
  /** Addresses and CIDR ranges (IPv4, IPv4-mapped IPv6); empty allows any address. */
  readonly ip_whitelist: readonly string[];
  /** Spend limit of the key in USD, or null for none (`key_limit_exceeded`, 402). */
  readonly limit: number | null;
}

/** A rate of a pool; `rpd: null` means no daily limit. */
export interface RateConfig {
  readonly rpm: number;
  readonly rpd: number | null;
}

/**
 * Which answers the emulator gives where the written contract and the live service differ:
 * `spec` answers as the written contract says (docs/deapi-contract.md); `live` as the live service and its
 * public clients do (see profile-shapes.ts).
 */
export type EmulatorProfile = 'spec' | 'live';

/** The emulator's whole configuration, defaults applied (schemas/emulator.schema.json). */
export interface EmulatorConfig {
  /** @default 'spec' */
  readonly profile: EmulatorProfile;
  /** A published rate-limit tier the rates start from (rate-tiers.ts), or null for the emulator's defaults. @default null */
  readonly tier: 'basic' | 'premium' | null;
  /** Virtual seconds per real second. @default 1 */
  readonly time_scale: number;
  /** Account balance in USD. @default 100 */
  readonly balance: number;
  /** Seed of every random choice (failures, jitter, faults). @default 1 */
  readonly seed: number;
  readonly keys: readonly KeyConfig[];
  /** Cap on active keys (`active_key_limit_reached`). @default 10 */
  readonly max_active_keys: number;
  readonly rate_limits: {
    readonly minute_window_s: number;
    readonly day_window_s: number;
    /** Default tier rate of every submission endpoint; null leaves them to `fallback`. */
    readonly generation: RateConfig | null;
    /** Per-endpoint tier rates keyed by v2 path under /api/v2/ (`images/generations`). */
    readonly endpoints: Readonly<Record<string, RateConfig | null>>;
    /** Rate for endpoints with no tier rate (X-RateLimit-Source: fallback); also payments and key reads. */
    readonly fallback: RateConfig | null;
    readonly quote: RateConfig | null;
    readonly enhancement: RateConfig | null;
    readonly jobs_status: RateConfig | null;
    /** Per-model overrides (X-RateLimit-Source: model). */
    readonly models: Readonly<Record<string, RateConfig | null>>;
    readonly key_creation_per_hour: number;
    readonly ip_refusals_before_429: number;
    /**
     * Seconds added to every 429's `Retry-After` (negative: fewer, never below 1), so that it
     * differs from `X-RateLimit-Reset`; the windows themselves do not move. @default 0 (the
     * spec: the seconds until the refusing window frees up)
     */
    readonly retry_after_offset_s: number;
  };
  readonly jobs: JobsConfig;
  readonly faults: FaultsConfig;
  readonly webhooks: WebhooksConfig;
  /** Payments served by GET /api/v2/account/payments (newest first); generated when absent. */
  readonly payments: readonly PaymentConfig[] | null;
}

export interface JobsConfig {
  /** Base processing time of a job in virtual ms, scaled by input size. @default 1500 */
  readonly duration_ms: number;
  /** Per-pool base durations (`audio/transcriptions: 30000`), overriding duration_ms. */
  readonly durations: Readonly<Record<string, number>>;
  /** Relative spread of durations, ± (0.3 = ±30 %). @default 0 */
  readonly jitter: number;
  /** Share of time spent `pending` before `processing`. @default 0.1 */
  readonly queue_share: number;
  /** Share of accepted jobs that end `error`. @default 0 */
  readonly fail_rate: number;
  /** Scale durations by input size (audio seconds, frames, pixels). @default true */
  readonly scale_by_input: boolean;
}

export interface FaultsConfig {
  /** Share of API requests answered 500 before anything is created. @default 0 */
  readonly error_500_rate: number;
  /** Share of API requests whose connection is reset before an answer. @default 0 */
  readonly reset_rate: number;
  /** Added latency per request, real ms. @default 0 */
  readonly latency_ms: number;
  /** Share of responses (API and result downloads) cut short after the headers. @default 0 */
  readonly truncate_rate: number;
  /** Share of accepted submissions whose answer is lost (job created, connection reset). @default 0 */
  readonly drop_answer_rate: number;
}

export interface WebhooksConfig {
  /**
   * The account-default signing secret, or null (deliveries unsigned unless the request has
   * one). The `live` profile generates one from the seed when the config leaves it out.
   */
  readonly secret: string | null;
  /** Accept and deliver to `http:` URLs (local receivers in tests). Spec: HTTPS only. @default false */
  readonly allow_http: boolean;
  /** Delays between attempts, virtual seconds. @default [0,60,120,300,600,1800,3600,10800,21600,43200] */
  readonly retry_schedule_s: readonly number[];
  /** A delivery must get a 2xx within this many real ms. @default 10000 */
  readonly timeout_ms: number;
  /** Consecutive failed deliveries that switch the account's webhooks off; 0 = never. @default 10 */
  readonly breaker_threshold: number;
  /** An open breaker also stops per-request URLs (the docs say they are still delivered). @default false */
  readonly breaker_stops_per_request: boolean;
}

export interface PaymentConfig {
  readonly id: number;
  readonly amount: number;
  readonly currency: string;
  readonly status: 'pending' | 'paid' | 'disputed' | 'cancelled' | 'failed' | 'expired';
  readonly provider: string;
  readonly created_at: string;
}

/**
 * The domain API the HTTP layer calls (implemented in validate-request.ts, prices.ts,
 * job-store.ts, prompt-enhancer.ts, webhook-sender.ts):
 *
 * - `validateRequest(endpoint, body, models, options): Promise<ValidationResult>`
 * - `summariseErrors(errors): string` → "The x field is required. (and 2 more errors)"
 * - `priceMicros(request): number` → integer micro-dollars; `price` = micros / 1e6
 * - `enhancePrompt(request): { prompt: string; negative_prompt: string | null }`
 * - `new JobStore(runtime, jobsConfig, hooks, webhookSender)` with
 *   `create(request, priceMicros, keyId): EmulatorJob`, `get(id)`, `list()`,
 *   `statusData(job): Record<string, unknown>` (the `data` object of a job-status answer),
 *   `download(requestId, filename, query): ResultFile | undefined`, `close()`
 * - `new WebhookSender(runtime, webhooksConfig)` with `close()`
 */
export interface ResultFile {
  readonly contentType: string;
  readonly body: Buffer;
}
