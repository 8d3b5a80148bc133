/**
 * The emulator's jobs, one namespace for v1 and v2. A job's state is computed from its
 * timestamps on the virtual clock whenever it is read: `pending` until its queue time is over,
 * `processing` with progress rising linearly, then `done` (or `error` for a seeded share
 * `fail_rate`, halfway through). A timer queue settles jobs nobody polls (the account is
 * charged once, when the job is first seen done; a failed job's reservation is released) and
 * fires webhooks. Results are rendered at download time; a job keeps only a small plan.
 */
import { createHash, randomUUID } from 'node:crypto';
import { alternateExtensions, renderResult, renderText, resultExtension } from './job-results.js';
import { planDurationMs } from './job-timing.js';
import { jobTypeOf } from './job-type.js';
import { digestParams } from './params-digest.js';
import { describeSource } from '../requests/request-source.js';
import { planResult, type ResultPlan } from './result-plan.js';
import { ResultUrlSigner } from './result-url-signer.js';
import { sourceMetadata } from './source-metadata.js';
import { TimerQueue } from './timer-queue.js';
import type { EmulatorJob, EmulatorRuntime, JobAccountHooks, JobsConfig, ResolvedRequest, ResultFile } from '../types.js';
import { isoSeconds } from '../webhooks/webhook-payload.js';
import type { WebhookSender } from '../webhooks/webhook-sender.js';
import { toUsd } from '../../common/index.js';

interface WebhookTarget {
  readonly url: string;
  readonly secret: string | null;
  readonly jobType: string;
}

interface JobRecord {
  readonly job: EmulatorJob;
  readonly startAt: number;
  readonly endAt: number;
  readonly fails: boolean;
  readonly plan: ResultPlan;
  readonly inline: boolean;
  /** URL and length of the source, when `include_metadata` was set on a URL source. */
  readonly metadataSource: { readonly url: string; readonly seconds: number } | null;
  readonly webhook: WebhookTarget | null;
  settled: boolean;
}

/** The error a failed job reports (the public docs' example). */
const WORKER_TIMEOUT = {
  code: 'WORKER_TIMEOUT',
  message: 'Worker failed to respond within the allowed time',
  reason: 'TIMEOUT',
  retryable: true,
  refunded: true,
} as const;

/** Progress a failing job reaches before it fails. */
const FAIL_POINT = 0.5;

/** A UUID v4 as a flat string: `randomUUID()` results keep ~0.4 KB of V8 string structure alive each. */
function newRequestId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/** Query values of a download request (URLSearchParams or a parsed query object). */
export type DownloadQuery = URLSearchParams | Readonly<Record<string, string | readonly string[] | undefined>>;

function queryValue(query: DownloadQuery, key: string): string | undefined {
  if (query instanceof URLSearchParams) return query.get(key) ?? undefined;
  const value = query[key];
  return typeof value === 'string' ? value : value?.[0];
}

export class JobStore {
  private readonly records = new Map<string, JobRecord>();
  /** Jobs to settle when they finish; webhook jobs to announce when they start. */
  private readonly finishes: TimerQueue<JobRecord>;
  private readonly starts: TimerQueue<JobRecord>;
  private readonly signer = new ResultUrlSigner();

  constructor(
    private readonly runtime: EmulatorRuntime,
    private readonly config: JobsConfig,
    private readonly hooks: JobAccountHooks,
    private readonly webhooks: WebhookSender | null = null,
  ) {
    this.finishes = new TimerQueue(runtime.clock, (record) => this.settleByTimer(record));
    this.starts = new TimerQueue(runtime.clock, (record) => this.announceStart(record));
  }

  /** Accepts a validated request as a new job. */
  create(request: ResolvedRequest, priceMicros: number, keyId: number): EmulatorJob {
    const now = this.runtime.clock.now();
    const jitterDraw = this.runtime.random();
    const fails = this.runtime.random() < this.config.fail_rate;
    const duration = planDurationMs(request, this.config, jitterDraw);
    const startAt = now + Math.round(duration * Math.min(1, Math.max(0, this.config.queue_share)));
    const endAt = startAt + Math.max(1, Math.round((duration - (startAt - now)) * (fails ? FAIL_POINT : 1)));
    const job: EmulatorJob = {
      requestId: newRequestId(),
      taskId: request.endpoint.task?.id ?? '',
      endpointPath: request.endpoint.path,
      model: request.model?.slug ?? null,
      status: 'pending',
      progress: 0,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      priceMicros,
      keyId,
      paramsDigest: digestParams(request),
      error: null,
    };
    const v = request.values;
    const source = describeSource(request.endpoint.task?.id, v, request.files);
    const webhookUrl = typeof v['webhook_url'] === 'string' ? v['webhook_url'] : null;
    const record: JobRecord = {
      job,
      startAt,
      endAt,
      fails,
      plan: planResult(request),
      inline: v['return_result_in_response'] === true,
      metadataSource: v['include_metadata'] === true && source.url ? { url: source.url, seconds: source.seconds } : null,
      webhook: webhookUrl
        ? { url: webhookUrl, secret: typeof v['webhook_secret'] === 'string' ? v['webhook_secret'] : null, jobType: jobTypeOf(request) }
        : null,
      settled: false,
    };
    this.records.set(job.requestId, record);
    this.refresh(record, now);
    if (record.webhook) this.starts.schedule(startAt, record);
    this.finishes.schedule(endAt, record);
    return job;
  }

  /** The job with this request id, its state brought up to the clock. */
  get(requestId: string): EmulatorJob | undefined {
    const record = this.records.get(requestId);
    if (!record) return undefined;
    this.refresh(record, this.runtime.clock.now());
    return record.job;
  }

  /** Every job, oldest first, states brought up to the clock. */
  list(): EmulatorJob[] {
    const now = this.runtime.clock.now();
    return [...this.records.values()].map((record) => {
      this.refresh(record, now);
      return record.job;
    });
  }

  /** The `data` object of a job-status answer (v1 and v2 alike). */
  statusData(job: EmulatorJob): Record<string, unknown> {
    const record = this.records.get(job.requestId);
    const now = this.runtime.clock.now();
    if (record) this.refresh(record, now);
    const done = job.status === 'done';
    const data: Record<string, unknown> = {
      status: job.status,
      progress: job.progress,
      result_url: done && record ? this.resultUrl(record, resultExtension(record.plan), now) : null,
      result: done && record?.inline ? renderText(record.plan, this.seedOf(job)) : null,
      preview: null,
      results_alt_formats:
        done && record && alternateExtensions(record.plan).length > 0
          ? Object.fromEntries(alternateExtensions(record.plan).map((ext) => [ext, this.resultUrl(record, ext, now)]))
          : null,
      metadata: done && record?.metadataSource ? sourceMetadata(record.metadataSource.url, record.metadataSource.seconds) : null,
      price: done ? { amount: toUsd(job.priceMicros), is_estimated: false } : job.status === 'error' ? { amount: 0, is_estimated: false } : null,
    };
    if (job.status === 'error' && job.error) {
      Object.assign(data, {
        error_code: job.error.code,
        error_message: job.error.message,
        error_reason: job.error.reason,
        retryable: job.error.retryable,
        refunded: job.error.refunded,
        failed_at: isoSeconds(job.finishedAt ?? now),
      });
    }
    return data;
  }

  /** The result file behind a signed result URL, or undefined (unknown job, not done, bad or expired link). */
  download(requestId: string, filename: string, query: DownloadQuery): ResultFile | undefined {
    const record = this.records.get(requestId);
    const now = this.runtime.clock.now();
    if (!record) return undefined;
    this.refresh(record, now);
    const match = /^result\.([a-z0-9]+)$/.exec(filename);
    if (record.job.status !== 'done' || !match?.[1]) return undefined;
    if (!this.signer.verify(requestId, filename, queryValue(query, 'expires'), queryValue(query, 'signature'), now)) return undefined;
    return renderResult(record.plan, this.seedOf(record.job), match[1]);
  }

  /** Stops the store's timers (pending webhooks are the sender's to cancel). */
  close(): void {
    this.finishes.close();
    this.starts.close();
  }

  private resultUrl(record: JobRecord, ext: string, now: number): string {
    return this.signer.sign(this.runtime.baseUrl(), record.job.requestId, `result.${ext}`, now);
  }

  private seedOf(job: EmulatorJob): number {
    return createHash('sha256').update(job.requestId).digest().readUInt32BE(0);
  }

  /** Brings a job's state up to `now`, settling it the first time it is seen finished. */
  private refresh(record: JobRecord, now: number): void {
    const job = record.job;
    if (record.settled) return;
    if (now >= record.startAt && job.startedAt === null) job.startedAt = record.startAt;
    if (now < record.startAt) {
      job.status = 'pending';
      job.progress = 0;
    } else if (now < record.endAt) {
      job.status = 'processing';
      const share = (now - record.startAt) / (record.endAt - record.startAt);
      job.progress = Math.round(share * (record.fails ? FAIL_POINT : 1) * 1000) / 10;
    } else {
      this.settle(record);
    }
  }

  private settle(record: JobRecord): void {
    if (record.settled) return;
    record.settled = true;
    const job = record.job;
    job.startedAt = record.startAt;
    job.finishedAt = record.endAt;
    if (record.fails) {
      job.status = 'error';
      job.progress = FAIL_POINT * 100;
      job.error = { ...WORKER_TIMEOUT };
      this.hooks.release(job);
    } else {
      job.status = 'done';
      job.progress = 100;
      this.hooks.charge(job);
    }
  }

  private announceStart(record: JobRecord): void {
    if (!record.webhook || !this.webhooks) return;
    this.refresh(record, Math.max(this.runtime.clock.now(), record.startAt));
    this.webhooks.notify(record.job, 'job.processing', record.webhook.url, record.webhook.secret, {
      jobType: record.webhook.jobType,
      resultUrl: null,
    });
  }

  private settleByTimer(record: JobRecord): void {
    this.settle(record);
    const target = record.webhook;
    if (!target || !this.webhooks) return;
    const done = record.job.status === 'done';
    const resultUrl = done ? this.resultUrl(record, resultExtension(record.plan), this.runtime.clock.now()) : null;
    this.webhooks.notify(record.job, done ? 'job.completed' : 'job.failed', target.url, target.secret, {
      jobType: target.jobType,
      resultUrl,
    });
  }
}
