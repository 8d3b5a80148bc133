/**
 * `deflow worker`: processes node jobs from the queues of an account, one BullMQ worker per
 * rate-limit pool with work (the pools runs registered). A job runs through the engine's own
 * job runner (render, cache, submit, poll, fetch, save), with the node's BullMQ job as its
 * journal: the intent before the POST, the `request_id` on arrival. A job whose worker dies
 * is taken over once its short lock lapses (stalled-job recovery); the new worker polls the
 * `request_id` it finds instead of submitting, and reports an intent without one as `unknown`.
 *
 * Rate limits: the governor is shared through Redis; on top, each pool's queue gets a global
 * rate from the learned limits (`setGlobalRateLimit`), so jobs start spread over the window;
 * a 429 pauses the pool's queue for every worker (`rateLimit(Retry-After + margin)`), and a
 * daily limit defers the pool's jobs until the daily window refills.
 *
 * Each worker keeps a heartbeat in Redis (worker-presence.ts), so `deflow status` tells the
 * workers running from those stopped cleanly and those that died.
 */
import { hostname } from 'node:os';
import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeapiClient } from '../../client/index.js';
import { DailyLimitError } from '../../client/index.js';
import type { Clock } from '../../common/index.js';
import { DeflowError } from '../../common/index.js';
import type { RunEventSink } from '../contracts/events.js';
import { BudgetGuard, type NodeOutcome, ResultStore, resumeNode, RunControl, runNode, toEventError } from '../run/index.js';
import { defineLockedUpdate, JobRecorder } from './job-recorder.js';
import type { NodeJobData, NodeJobResult } from './node-job.js';
import { BULL_PREFIX, queueName } from './queue-names.js';
import { keepWorkerPresence } from './worker-presence.js';
import type { RedisGovernor } from './redis-governor.js';
import { redisOptions } from './redis-connection.js';
import type { RedisTarget } from './redis-url.js';
import { activePools, listQueueRuns, readRun } from './run-registry.js';
import { ensureUpstreamBlobs } from './upstream-blobs.js';
import { jobContext, loadWorkerRun, saveWorkerRates, type WorkerRun } from './worker-run.js';

export interface QueueWorkerOptions {
  readonly target: RedisTarget;
  /** Commands (shared with the governor). */
  readonly redis: Redis;
  readonly governor: RedisGovernor;
  /** The account's client; its governor must be `governor`. */
  readonly client: DeapiClient;
  readonly scope: string;
  /** Jobs in flight per pool. @default 100 */
  readonly concurrency?: number;
  readonly clock?: Clock;
  /** Real ms a job's lock lasts without renewal; a dead worker's jobs are taken over after about this long. @default 30000 */
  readonly lockMs?: number;
  /** Clock ms jobs already submitted are still polled after close() is called. @default 15000 */
  readonly graceMs?: number;
  /** Events of the jobs this worker runs (for its log). */
  readonly onEvent?: RunEventSink;
  /** Each job as this worker starts it, before its events (with the coordinator's `traceparent` of it, when traced). */
  readonly onJob?: (job: { readonly run: string; readonly step: string; readonly k: number; readonly traceparent?: string }) => void;
  /** One line per notable thing (a pool served, a run loaded, a job deferred). */
  readonly log?: (line: string) => void;
  /** Real ms between two looks for pools with work. @default 2000 */
  readonly poolPollMs?: number;
}

export interface QueueWorker {
  /** Jobs finished by this worker (any outcome). */
  readonly finished: number;
  /** Stops taking jobs; jobs in flight settle (submitted ones are polled for the grace period, then handed back). */
  close(): Promise<void>;
}

/** Real ms a job's lock lasts by default (also how long a silent worker counts as alive). */
const DEFAULT_LOCK_MS = 30_000;

/** Margin added to a 429's Retry-After before the pool's queue opens again (real ms). */
const RETRY_MARGIN_MS = 250;

export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const worker = new QueueWorkerProcess(options);
  await worker.refreshPools();
  return worker;
}

class QueueWorkerProcess implements QueueWorker {
  finished = 0;
  private readonly clock: Clock;
  private readonly workers = new Map<string, Worker<NodeJobData, NodeJobResult>>();
  private readonly queues = new Map<string, Queue>();
  private readonly runs = new Map<string, Promise<WorkerRun>>();
  private readonly controls = new Set<RunControl>();
  private readonly poller: NodeJS.Timeout;
  private closing = false;
  /** This worker's record in the account's workers hash: its heartbeat, then stopped (`deflow status` reads it). */
  private readonly presence: { stop(): Promise<void> };

  constructor(private readonly options: QueueWorkerOptions) {
    this.clock = options.clock ?? options.client.clock;
    this.presence = keepWorkerPresence(options.redis, options.scope, options.governor.owner, options.lockMs ?? DEFAULT_LOCK_MS);
    defineLockedUpdate(options.redis);
    this.poller = setInterval(() => {
      this.refreshPools().catch((error: unknown) => this.log(`cannot read the pools with work: ${message(error)}`));
    }, options.poolPollMs ?? 2000);
    this.poller.unref();
    options.governor.on('limitLearned', this.onLearned);
    options.governor.on('throttled', this.onThrottled);
  }

  /**
   * Starts a BullMQ worker for every pool with work that has none yet, and loads the newest
   * running run ahead of its first job (expanding a large workflow takes a moment).
   */
  async refreshPools(): Promise<void> {
    if (this.closing) return;
    for (const pool of await activePools(this.options.redis, this.options.scope)) {
      if (this.workers.has(pool)) continue;
      this.serve(pool);
    }
    const [newest] = await listQueueRuns(this.options.redis, this.options.scope, 1);
    if (newest !== undefined && newest.status === 'running' && !this.runs.has(newest.runId)) this.runOf(newest.runId).catch(() => {});
  }

  private serve(pool: string): void {
    const name = queueName(this.options.scope, pool);
    const connection = redisOptions(this.options.target, true);
    const lockDuration = this.options.lockMs ?? DEFAULT_LOCK_MS;
    const worker = new Worker<NodeJobData, NodeJobResult>(name, (job, token) => this.process(job, token ?? ''), {
      connection,
      prefix: BULL_PREFIX,
      concurrency: this.options.concurrency ?? 100,
      lockDuration,
      stalledInterval: Math.max(500, Math.round(lockDuration / 2)),
      maxStalledCount: 20,
      name: `${hostname()}:${process.pid}`,
    });
    worker.on('error', (error) => this.log(`${pool}: ${message(error)}`));
    this.workers.set(pool, worker);
    this.queues.set(pool, new Queue(name, { connection: redisOptions(this.options.target, false), prefix: BULL_PREFIX }));
    this.log(`serving pool ${pool}`);
    // A limit learned before this pool was served.
    for (const bucket of this.options.governor.describe()) {
      if (bucket.bucket === pool && bucket.state === 'known') this.onLearned({ pool, limit: bucket.limit, windowSeconds: bucket.windowSeconds });
    }
  }

  private async process(job: Job<NodeJobData, NodeJobResult>, token: string): Promise<NodeJobResult> {
    const data = job.data;
    const run = await this.runOf(data.run);
    const id = run.graph.nodeIndex(data.step, data.k);
    if (data.requestId === undefined && data.intent !== undefined) {
      // A worker sent this submission and was lost before the answer: the service may have the job.
      return { outcome: 'unknown', reason: `a worker was lost between the submission of attempt ${data.intent.attempt} and its answer (intent recorded, no request id)` };
    }
    this.options.onJob?.({ run: data.run, step: data.step, k: data.k, ...(data.traceparent === undefined ? {} : { traceparent: data.traceparent }) });
    const recorder = new JobRecorder(this.options.redis, job, token);
    const control = new RunControl();
    const results = new ResultStore();
    for (const [upstream, result] of data.upstream) results.put(upstream, result, 1);
    for (const [upstream, key] of data.upstreamKeys ?? []) run.cache.know?.(upstream, key);
    const ctx = jobContext(run, { client: this.options.client, gate: this.options.governor, clock: this.clock, budget: new BudgetGuard(null), control, results });
    run.recorder.attach(id, recorder);
    this.controls.add(control);
    if (this.closing) control.stop('interrupted');
    try {
      await ensureUpstreamBlobs(data.upstream, run.blobs, this.options.client);
      run.state.start(id);
      // Paid in an earlier session, its result not saved: fetched again, never charged again.
      if (data.paid !== undefined && data.requestId !== undefined) run.state.seedPaid(id, data.requestId);
      const outcome =
        data.requestId !== undefined
          ? await resumeNode(ctx, id, data.requestId, data.attempt ?? 1, data.cacheKey ?? null)
          : await runNode(ctx, id);
      if (recorder.result !== undefined) {
        this.finished++;
        return recorder.result;
      }
      return await this.handBack(job, token, control, outcome);
    } finally {
      run.recorder.detach(id);
      this.controls.delete(control);
    }
  }

  /** A job that stopped before it ended: deferred to the daily window's reset, refused, or given back to the queue. */
  private async handBack(job: Job<NodeJobData, NodeJobResult>, token: string, control: RunControl, outcome: NodeOutcome): Promise<NodeJobResult> {
    const pool = this.poolOf(job);
    if (control.reason === 'refused') return { outcome: 'refused', error: toEventError(control.error, this.options.client.redact) };
    if (control.reason === 'fatal') throw control.error;
    let delayReal = 0;
    if (control.reason === 'daily-limit' && control.error instanceof DailyLimitError && control.error.resetAt !== undefined) {
      delayReal = Math.max(0, (control.error.resetAt - this.clock.now()) * this.clock.realPerVirtual) + RETRY_MARGIN_MS;
      await this.queues.get(pool)?.rateLimit(delayReal);
      this.log(`pool ${pool}: daily limit used up; its jobs wait until ${new Date(control.error.resetAt).toISOString()}`);
    } else if (!this.closing && outcome !== 'abandoned' && outcome !== 'unstarted') {
      throw new DeflowError('E_INTERNAL', `job ${job.id}: ended as ${outcome} without a result`);
    }
    await job.moveToDelayed(Date.now() + delayReal, token);
    throw new DelayedError();
  }

  private runOf(runId: string): Promise<WorkerRun> {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = this.loadRun(runId);
      this.runs.set(runId, run);
      // A run that could not be loaded is tried again by the next job.
      run.catch(() => this.runs.delete(runId));
      if (this.runs.size > 16) {
        const [oldest, dropped] = this.runs.entries().next().value!;
        this.runs.delete(oldest);
        // Its learned rates stay in its state folder for the next worker that loads it.
        void dropped.then(saveWorkerRates, () => {});
      }
    }
    return run;
  }

  private async loadRun(runId: string): Promise<WorkerRun> {
    const meta = await readRun(this.options.redis, this.options.scope, runId);
    if (meta === undefined) throw new DeflowError('E_QUEUE_RUN', `run ${runId} is not registered in this queue (its coordinator never started it, or it was removed)`, { details: { run: runId } });
    const run = await loadWorkerRun(meta, { client: this.options.client, clock: this.clock, onEvent: this.options.onEvent ?? (() => {}) });
    this.log(`run ${runId}: ${meta.workflow}`);
    return run;
  }

  /**
   * A pool's limit became known: its queue starts jobs at most twice as fast as the account's
   * rate, counted over quarter windows. Job starts are spread over the window (never a whole
   * window's burst at once after a pause), while the shared governor paces the requests exactly;
   * a start rate of exactly the account's would add a second fixed window out of step with the
   * service's, and lose time at every window boundary.
   */
  private readonly onLearned = (event: { pool: string; model?: string; limit: number; windowSeconds: number }): void => {
    if (event.model !== undefined) return;
    const queue = this.queues.get(event.pool);
    if (queue === undefined || event.limit <= 0) return;
    const quarterReal = Math.max(1, Math.round((event.windowSeconds * 1000 * this.clock.realPerVirtual) / 4));
    queue.setGlobalRateLimit(Math.max(1, Math.ceil(event.limit / 2)), quarterReal).catch((error: unknown) => this.log(`${event.pool}: cannot set its rate: ${message(error)}`));
  };

  private readonly onThrottled = (event: { pool: string; until: number | null; reason: 'window' | '429' }): void => {
    if (event.reason !== '429' || event.until === null) return;
    const queue = this.queues.get(event.pool);
    const waitReal = Math.max(0, (event.until - this.clock.now()) * this.clock.realPerVirtual) + RETRY_MARGIN_MS;
    queue?.rateLimit(waitReal).catch(() => {});
  };

  private poolOf(job: Job<NodeJobData, NodeJobResult>): string {
    for (const [pool, worker] of this.workers) if (worker.name === job.queueName) return pool;
    return [...this.queues.entries()].find(([, queue]) => queue.name === job.queueName)?.[0] ?? '';
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.poller);
    this.options.governor.off('limitLearned', this.onLearned);
    this.options.governor.off('throttled', this.onThrottled);
    const closing = [...this.workers.values()].map((worker) => worker.close());
    for (const control of this.controls) control.stop('interrupted');
    const grace = this.clock.sleep(this.options.graceMs ?? 15_000).then(() => {
      for (const control of this.controls) control.abandonPolls();
    });
    await Promise.all(closing);
    void grace;
    for (const control of this.controls) control.abandonPolls();
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    // What this worker's jobs learned of job durations: the next run of each state folder starts from it.
    await Promise.all([...this.runs.values()].map((run) => run.then(saveWorkerRates, () => {})));
    await this.presence.stop();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
