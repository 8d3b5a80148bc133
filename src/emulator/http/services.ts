/**
 * What the request handlers of one running emulator share. Built by `startEmulator`; no
 * module keeps state of its own.
 */
import type { Clock } from '../../common/index.js';
import type { Account } from '../account/account.js';
import type { KeyStore } from '../account/api-keys.js';
import type { WebhookSender } from '../webhooks/webhook-sender.js';
import type { FaultInjector } from '../config/faults.js';
import type { StatsRecorder } from './introspection.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { EmulatorConfig, EmulatorJob, ModelRegistry, ResolvedRequest, ResultFile } from '../types.js';

/** The part of the domain's job store the HTTP layer calls (src/emulator/types.ts, domain API). */
export interface JobStoreApi {
  create(request: ResolvedRequest, priceMicros: number, keyId: number): EmulatorJob;
  get(requestId: string): EmulatorJob | undefined;
  list(): readonly EmulatorJob[];
  statusData(job: EmulatorJob): Record<string, unknown>;
  download(requestId: string, filename: string, query: URLSearchParams): ResultFile | undefined | Promise<ResultFile | undefined>;
}

export interface EmulatorServices {
  readonly config: EmulatorConfig;
  readonly clock: Clock;
  readonly keys: KeyStore;
  readonly account: Account;
  readonly limiter: RateLimiter;
  readonly models: ModelRegistry;
  readonly jobs: JobStoreApi;
  readonly faults: FaultInjector;
  /** The account's webhook deliveries (its breaker: stats, enable). */
  readonly webhooks: WebhookSender;
  readonly stats: StatsRecorder;
  /** Where uploads are streamed; removed when the emulator closes. */
  readonly tempDir: string;
  /** `http://127.0.0.1:PORT`, known once listening. */
  baseUrl(): string;
  /** Reports an unexpected error (a bug); the request is answered 500. */
  onError(error: unknown): void;
}
