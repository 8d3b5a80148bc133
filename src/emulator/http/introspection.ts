/**
 * `/_emulator/*`: counters and job list for tests and benchmarks. Not part of the service;
 * unauthenticated, not rate limited and not counted.
 */
import type { Clock } from '../../common/index.js';
import type { ApiResponse } from './responses.js';
import { jsonResponse, routeNotFound } from './responses.js';
import type { EmulatorJob } from '../types.js';
import { isoOrNull, toUsd } from '../../common/index.js';

/** GET /_emulator/stats. */
export interface EmulatorStats {
  /** Every /api and /results request. */
  readonly requests: number;
  /** Answers by HTTP status (`"200"`, `"429"`, …). */
  readonly by_status: Readonly<Record<string, number>>;
  /** Jobs created. */
  readonly submissions: number;
  /** Job-status answers with 200. */
  readonly polls: number;
  /** Price answers with 200. */
  readonly quotes: number;
  /** Result files served. */
  readonly downloads: number;
  /** Submissions accepted (job created) whose answer was dropped by the `drop_answer` fault. */
  readonly dropped_answers: number;
  /** Webhook deliveries and the account's breaker. */
  readonly webhooks?: WebhookStats;
}

/** The webhook part of GET /_emulator/stats. */
export interface WebhookStats {
  readonly delivered: number;
  readonly failed: number;
  readonly pending: number;
  /** Failed deliveries in a row across the account (a 2xx resets it). */
  readonly consecutive_failures: number;
  /** The account's webhooks are switched off (POST /_emulator/webhooks/enable switches them on). */
  readonly breaker_open: boolean;
  readonly breaker_trips: number;
  /** Deliveries not attempted because the breaker was open. */
  readonly suppressed: number;
}

/** One job of GET /_emulator/jobs. */
export interface EmulatorJobSummary {
  readonly request_id: string;
  readonly task: string;
  readonly status: EmulatorJob['status'];
  readonly created_at: string;
  /** When it finished (done or error), virtual time with milliseconds; null while it runs. */
  readonly finished_at: string | null;
  readonly endpoint: string;
  readonly model: string | null;
  readonly price: number;
  readonly params_digest: string;
  readonly progress: number;
}

type Counter = 'submissions' | 'polls' | 'quotes' | 'downloads' | 'dropped_answers';

/** Counts requests and outcomes of one running emulator. */
export class StatsRecorder {
  #requests = 0;
  readonly #byStatus = new Map<number, number>();
  readonly #counters: Record<Counter, number> = { submissions: 0, polls: 0, quotes: 0, downloads: 0, dropped_answers: 0 };

  /** An /api or /results request arrived. */
  countRequest(): void {
    this.#requests++;
  }

  /** It was answered with `status`. */
  countStatus(status: number): void {
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
  }

  count(counter: Counter): void {
    this.#counters[counter]++;
  }

  snapshot(): EmulatorStats {
    const byStatus: Record<string, number> = {};
    for (const [status, n] of [...this.#byStatus].sort((a, b) => a[0] - b[0])) byStatus[String(status)] = n;
    return { requests: this.#requests, by_status: byStatus, ...this.#counters };
  }
}

/** The job list entry of a job. */
export function summariseJob(job: EmulatorJob): EmulatorJobSummary {
  return {
    request_id: job.requestId,
    task: job.taskId,
    status: job.status,
    created_at: new Date(job.createdAt).toISOString(),
    finished_at: isoOrNull(job.finishedAt),
    endpoint: job.endpointPath,
    model: job.model,
    price: toUsd(job.priceMicros),
    params_digest: job.paramsDigest,
    progress: job.progress,
  };
}

/** Answers GET /_emulator/{stats,jobs,clock}. */
export function answerIntrospection(
  path: string,
  sources: { stats: StatsRecorder; jobs: () => readonly EmulatorJob[]; clock: Clock; timeScale: number; webhooks?: () => WebhookStats },
): ApiResponse {
  switch (path) {
    case '/_emulator/stats':
      return jsonResponse(200, { ...sources.stats.snapshot(), ...(sources.webhooks === undefined ? {} : { webhooks: sources.webhooks() }) });
    case '/_emulator/jobs':
      return jsonResponse(200, sources.jobs().map(summariseJob));
    case '/_emulator/clock':
      return jsonResponse(200, { now_ms: Math.round(sources.clock.now()), time_scale: sources.timeScale });
    default:
      return routeNotFound(path);
  }
}
