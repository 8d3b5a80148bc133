import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../common/index.js';
import { DeflowError } from '../common/index.js';
import type { Governor } from './governor-types.js';
import { RateGovernor } from './rate-governor.js';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './retry-policy.js';
import { DEFAULT_TRANSFER_LIMITS, type TransferLimits } from './transfers.js';
import { isLoopbackHost } from './url-safety.js';

/** Overrides of the result transfers' limits (timeouts in ms, caps in bytes per result kind). */
export interface TransferLimitOptions {
  readonly headersTimeoutMs?: number | undefined;
  readonly stallTimeoutMs?: number | undefined;
  readonly deadlineMs?: number | undefined;
  readonly maxBytes?: Partial<TransferLimits['maxBytes']> | undefined;
}

/** The service's public base URL. */
export const DEFAULT_BASE_URL = 'https://api.deapi.ai';

/** Options of {@link DeapiClient}. */
export interface DeapiClientOptions {
  /** The API key (from `DEAPI_API_KEY` or a key file; never a command-line value). */
  readonly apiKey: string;
  /** @default 'https://api.deapi.ai' (`DEAPI_BASE_URL` in the CLI) */
  readonly baseUrl?: string | undefined;
  /** The clock `X-RateLimit-Reset` and waits refer to (the emulator's virtual clock in tests). @default systemClock */
  readonly clock?: Clock | undefined;
  /**
   * The rate governor, shared by every client that spends the same account; `false` turns
   * pacing off (retries still honour `Retry-After`). @default a new RateGovernor on `clock`
   */
  readonly governor?: Governor | false | undefined;
  /** Passed to the default governor. @default 'throw' */
  readonly onDailyLimit?: 'throw' | 'wait' | undefined;
  /** Overrides of the retry policy (see {@link RetryOptions}). */
  readonly retry?: Partial<RetryOptions> | undefined;
  /** Requests on the wire at once (waits for windows and retries hold none). @default 64 */
  readonly maxInFlight?: number | undefined;
  /** Keep-alive sockets per origin. @default 64 */
  readonly connections?: number | undefined;
  /** JSON answers larger than this are refused. @default 10485760 (10 MiB) */
  readonly maxResponseBytes?: number | undefined;
  /** @default 300000 */
  readonly headersTimeoutMs?: number | undefined;
  /** @default 300000 */
  readonly bodyTimeoutMs?: number | undefined;
  /** A connection not made within this many ms fails (a dead host). @default 10000 */
  readonly connectTimeoutMs?: number | undefined;
  /**
   * An API request (its upload and its answer included) not over within this many ms of real
   * time fails as a network error that may have reached the service, so a submission is not
   * resent: a server that trickles bytes defeats the headers and idle timeouts. @default 600000
   */
  readonly requestDeadlineMs?: number | undefined;
  /** Result downloads: headers and stall timeouts, an overall deadline, a size cap per result kind. */
  readonly transfer?: TransferLimitOptions | undefined;
  /** Use this undici dispatcher instead of a private keep-alive Agent. */
  readonly dispatcher?: Dispatcher | undefined;
  /** Receives one line per request and answer (already redacted), for `--verbose`. */
  readonly log?: ((line: string) => void) | undefined;
  /** More values to mask in every message (another key, a webhook secret). */
  readonly secrets?: readonly string[] | undefined;
  /** @default 'deflow/0.1.0' */
  readonly userAgent?: string | undefined;
}

/** The options with every default filled in. */
export interface ResolvedClientOptions {
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly clock: Clock;
  readonly governor: Governor | null;
  readonly retry: RetryOptions;
  readonly maxInFlight: number;
  readonly connections: number;
  readonly maxResponseBytes: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly requestDeadlineMs: number;
  readonly transfer: TransferLimits;
  readonly dispatcher: Dispatcher | undefined;
  readonly log: ((line: string) => void) | undefined;
  readonly secrets: readonly string[];
  readonly userAgent: string;
}

/**
 * Checks the options eagerly; each message quotes the option and what it got (never the key).
 * A plain-http base URL is accepted only for loopback hosts: the key would cross the network
 * in clear otherwise.
 */
export function resolveClientOptions(options: DeapiClientOptions): ResolvedClientOptions {
  const apiKey = options.apiKey;
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new DeflowError('E_USAGE_NO_KEY', 'apiKey: expected a non-empty API key');
  }
  if (/\s/.test(apiKey)) throw new DeflowError('E_USAGE_KEY_FORMAT', 'apiKey: expected a key without spaces or line breaks');
  const baseUrl = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
  const clock = options.clock ?? systemClock;
  const governor =
    options.governor === false ? null : (options.governor ?? new RateGovernor({ clock, onDailyLimit: options.onDailyLimit ?? 'throw' }));
  const retry = { ...DEFAULT_RETRY_OPTIONS, ...definedOnly(options.retry ?? {}) };
  for (const key of ['maxRetries', 'baseDelayMs', 'maxDelayMs', 'maxRateLimitRetries'] as const) checkCount(`retry.${key}`, retry[key], 0);
  return {
    apiKey,
    baseUrl,
    clock,
    governor,
    retry,
    maxInFlight: checkCount('maxInFlight', options.maxInFlight ?? 64, 1),
    connections: checkCount('connections', options.connections ?? 64, 1),
    maxResponseBytes: checkCount('maxResponseBytes', options.maxResponseBytes ?? 10 * 1024 * 1024, 1024),
    headersTimeoutMs: checkCount('headersTimeoutMs', options.headersTimeoutMs ?? 300_000, 0),
    bodyTimeoutMs: checkCount('bodyTimeoutMs', options.bodyTimeoutMs ?? 300_000, 0),
    connectTimeoutMs: checkCount('connectTimeoutMs', options.connectTimeoutMs ?? 10_000, 1),
    requestDeadlineMs: checkCount('requestDeadlineMs', options.requestDeadlineMs ?? 600_000, 1),
    transfer: resolveTransferLimits(options.transfer ?? {}),
    dispatcher: options.dispatcher,
    log: options.log,
    secrets: options.secrets ?? [],
    userAgent: options.userAgent ?? 'deflow/0.1.0',
  };
}

function resolveTransferLimits(options: TransferLimitOptions): TransferLimits {
  const d = DEFAULT_TRANSFER_LIMITS;
  const maxBytes = { ...d.maxBytes, ...definedOnly(options.maxBytes ?? {}) };
  for (const [kind, cap] of Object.entries(maxBytes)) checkCount(`transfer.maxBytes.${kind}`, cap, 1);
  return {
    headersTimeoutMs: checkCount('transfer.headersTimeoutMs', options.headersTimeoutMs ?? d.headersTimeoutMs, 1),
    stallTimeoutMs: checkCount('transfer.stallTimeoutMs', options.stallTimeoutMs ?? d.stallTimeoutMs, 1),
    deadlineMs: checkCount('transfer.deadlineMs', options.deadlineMs ?? d.deadlineMs, 1),
    maxBytes,
  };
}

function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DeflowError('E_USAGE_BASE_URL', `baseUrl: expected an absolute URL such as ${DEFAULT_BASE_URL}, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new DeflowError(
      'E_USAGE_BASE_URL',
      `baseUrl: expected an https: URL (http: only on loopback), got ${JSON.stringify(`${url.protocol}//${url.host}`)}`,
    );
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new DeflowError('E_USAGE_BASE_URL', 'baseUrl: expected no query, fragment or credentials in the base URL');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkCount(name: string, value: number, min: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= min)) {
    throw new DeflowError('E_USAGE_OPTION', `${name}: expected a number ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
