/**
 * Webhooks (`--webhook-url URL --webhook-listen host:port`): every submission asks the service
 * to call `URL` when its job changes, signed with the run's own secret; the local receiver
 * verifies each delivery. A verified final delivery (`done` with its `result_url`, or `error`)
 * is the job's status: the poller takes it instead of a status request, so a run whose
 * deliveries arrive spends no status request on its jobs. Polling stays on as the fallback, at
 * a multiple of its usual waits (a delivery is expected first), so a lost delivery costs time,
 * never a stranded paid job. A final delivery without what the job's status needs (no
 * `result_url` on `done`) only cuts the wait short, and the poller asks the service.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../common/index.js';
import { DeflowError } from '../../common/index.js';
import { writeFileAtomic } from '../../common/index.js';
import type { JobStatus } from '../../client/index.js';
import { TERMINAL_JOB_STATUSES } from '../../service/index.js';
import { startWebhookReceiver, type WebhookHint, type WebhookReceiver } from './webhook-receiver.js';
import { AdoptionDesk } from './adoption-desk.js';
import { SelfCheckWatch } from './webhook-self-check.js';
import { appendAdoption } from './adoption-log.js';
import { type Correlation, correlatedUrl, readCorrelationKey } from './webhook-correlation.js';

/** Job statuses whose delivery is worth a status request now (`processing` is not). */
const FINAL_STATUSES: ReadonlySet<string> = new Set(TERMINAL_JOB_STATUSES);

/** Waits of jobs in flight that a delivery can cut short. */
export class JobWakeups {
  private readonly waiting = new Map<string, { controller: AbortController; status: JobStatus | null }>();
  /** Deliveries that came while their job was not waiting (a poll in flight): its next wait ends at once. */
  private readonly early = new Map<string, JobStatus | null>();
  /** Waits cut short by a delivery. */
  woken = 0;
  /** Waits ended by a verified final delivery, taken as the job's status (no status request). */
  delivered = 0;

  constructor(private readonly maxEarly = 10_000) {}

  /** Wakes the wait of `requestId`, or makes its next wait return at once; `status`, when known, is the job's final status. */
  wake(requestId: string, status: JobStatus | null = null): void {
    const waiter = this.waiting.get(requestId);
    if (waiter !== undefined) {
      waiter.status = status;
      waiter.controller.abort();
      return;
    }
    this.early.set(requestId, status);
    // Deliveries for jobs this run does not poll (an earlier run's) must not pile up.
    if (this.early.size > this.maxEarly) this.early.delete(this.early.keys().next().value as string);
  }

  /**
   * Sleeps `ms` on `clock`, or less if a delivery for `requestId` arrives: resolves with
   * undefined when the time was slept, with the job's final status when a verified delivery
   * carried it, else null (woken: ask the service). Rejects when `signal` aborts.
   */
  async sleep(requestId: string, ms: number, clock: Clock, signal?: AbortSignal): Promise<JobStatus | null | undefined> {
    signal?.throwIfAborted();
    if (this.early.has(requestId)) {
      const status = this.early.get(requestId)!;
      this.early.delete(requestId);
      return this.woke(status);
    }
    const hint = { controller: new AbortController(), status: null as JobStatus | null };
    this.waiting.set(requestId, hint);
    try {
      await clock.sleep(ms, signal === undefined ? hint.controller.signal : AbortSignal.any([signal, hint.controller.signal]));
      return undefined;
    } catch (error) {
      if (!hint.controller.signal.aborted || signal?.aborted) throw error;
      return this.woke(hint.status);
    } finally {
      if (this.waiting.get(requestId) === hint) this.waiting.delete(requestId);
    }
  }

  private woke(status: JobStatus | null): JobStatus | null {
    this.woken++;
    if (status !== null) this.delivered++;
    return status;
  }
}

/**
 * The job status a verified final delivery states, or null when it lacks what the poller
 * needs (a `done` without `result_url`): then the delivery only wakes the poll.
 */
export function deliveredStatus(hint: WebhookHint): JobStatus | null {
  if (!hint.signed || !FINAL_STATUSES.has(hint.status)) return null;
  const data = hint.data;
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
  const base = { progress: hint.status === 'done' ? 100 : null, result: null, preview: null, metadata: null, raw: { ...data } };
  if (hint.status === 'done') {
    if (hint.resultUrl === undefined) return null;
    return { ...base, status: 'done', resultUrl: hint.resultUrl, error: null };
  }
  return {
    ...base,
    status: 'error',
    resultUrl: null,
    error: {
      code: text(data['error_code']),
      message: text(data['error_message']),
      reason: text(data['error_reason']),
      retryable: flag(data['retryable']),
      refunded: flag(data['refunded']),
    },
  };
}

export interface WebhookHintsOptions {
  /** `--webhook-url`: the public URL the service delivers to (it reaches the receiver). */
  readonly url: string;
  /** `--webhook-listen`: where the local receiver listens. */
  readonly listen: string;
  /** The run's signing secret ({@link readRunWebhookSecret}). */
  readonly secret: string;
  readonly clock: Clock;
  /** Every verified, first-seen delivery (for logs and tests). */
  readonly onHint?: (hint: WebhookHint) => void;
  /**
   * The state folder and the run: each submission's URL names its item (webhook-correlation.ts),
   * deliveries naming a job the run does not know are kept in the state folder
   * (adoption-log.ts), and deliveries for earlier runs of the folder are verified with their
   * run's secret. Without it the URL is the same for every submission.
   */
  readonly adoption?: {
    readonly stateDir: string;
    readonly runId: string;
    /** The webhook secret of another run of the state folder, when it has one. */
    readonly secretOf: (runId: string) => string | undefined;
  };
}

export interface WebhookHints {
  /** Fields added to every submission (without the item's correlation). */
  readonly fields: { readonly webhook_url: string; readonly webhook_secret: string };
  /** The fields of one submission: its URL names the item (journal name) and attempt. */
  readonly fieldsFor: (node: string, attempt: number) => { readonly webhook_url: string; readonly webhook_secret: string };
  /** Where a submission whose answer was lost finds its job (null without `adoption`). */
  readonly desk: AdoptionDesk | null;
  readonly wakeups: JobWakeups;
  readonly receiver: WebhookReceiver;
  /** Verified deliveries received (self-checks not counted). */
  readonly received: () => number;
  /**
   * The start-up self-check: a signed test delivery through the public URL must reach the
   * receiver. Null when it did, else why not (then the session should poll instead).
   */
  selfCheck(timeoutMs?: number): Promise<string | null>;
  close(): Promise<void>;
}

/** Starts the receiver and returns the submission fields and the wakeups the poller waits on. */
export async function startWebhookHints(options: WebhookHintsOptions): Promise<WebhookHints> {
  assertWebhookUrl(options.url);
  const wakeups = new JobWakeups();
  const watch = new SelfCheckWatch();
  let received = 0;
  const adoption = options.adoption;
  const key = adoption === undefined ? undefined : readCorrelationKey(adoption.stateDir);
  const desk = adoption === undefined ? null : new AdoptionDesk();
  /** Jobs whose delivery is kept already (one line per job, not per delivery). */
  const kept = new Set<string>();
  const fields = { webhook_url: options.url, webhook_secret: options.secret };
  const receiver = await startWebhookReceiver({
    listen: options.listen,
    secret: options.secret,
    clock: options.clock,
    ...(key === undefined || adoption === undefined
      ? {}
      : {
          correlationKey: key,
          secretFor: (c: Correlation) => (c.runId === adoption.runId ? options.secret : adoption.secretOf(c.runId)),
          onCorrelated: (hint: WebhookHint) => {
            const c = hint.correlation!;
            if (desk!.isKnown(hint.requestId) || kept.has(hint.requestId)) return;
            appendAdoption(adoption.stateDir, { ...c, requestId: hint.requestId });
            kept.add(hint.requestId);
            desk!.offer(c.runId, c.node, c.attempt, hint.requestId);
          },
        }),
    onHint: (hint) => {
      if (watch.saw(hint.requestId)) return;
      received++;
      options.onHint?.(hint);
      if (FINAL_STATUSES.has(hint.status)) wakeups.wake(hint.requestId, deliveredStatus(hint));
    },
  });
  return {
    fields,
    fieldsFor: (node, attempt) =>
      key === undefined || adoption === undefined ? fields : { webhook_url: correlatedUrl(options.url, key, { runId: adoption.runId, node, attempt }), webhook_secret: options.secret },
    desk,
    wakeups,
    receiver,
    received: () => received,
    selfCheck: (timeoutMs) => watch.check(options.url, options.secret, options.clock, timeoutMs),
    close: () => receiver.close(),
  };
}

const SECRET_FILE = 'webhook-secret';

/**
 * The run's webhook secret, made on first use and kept in the run folder (mode 0600), so a
 * resumed run still accepts deliveries for jobs an earlier session submitted.
 */
export function readRunWebhookSecret(runDir: string): string {
  const found = findRunWebhookSecret(runDir);
  if (found !== undefined) return found;
  // 32 random bytes: 43 characters, within the service's 32 to 255.
  const secret = randomBytes(32).toString('base64url');
  writeFileAtomic(join(runDir, SECRET_FILE), `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The run's webhook secret when it has one (never makes one). */
export function findRunWebhookSecret(runDir: string): string | undefined {
  const path = join(runDir, SECRET_FILE);
  try {
    const secret = readFileSync(path, 'utf8').trim();
    if (secret.length >= 32) return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  }
  return undefined;
}

function assertWebhookUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(url, 'not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw usageError(url, `scheme ${parsed.protocol}`);
  if (url.length > 2048) throw usageError(url, `${url.length} characters (at most 2048)`);
}

function usageError(url: string, found: string): DeflowError {
  return new DeflowError('E_USAGE_WEBHOOK_URL', `--webhook-url ${JSON.stringify(url)}: expected an https:// URL that reaches --webhook-listen, got ${found}`, {
    details: { url },
  });
}
