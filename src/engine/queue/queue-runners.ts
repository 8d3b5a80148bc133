/**
 * The coordinator's job runner: instead of running a node, it enqueues the node's job (id
 * `run:step:item`, so a node enqueued twice, or by a coordinator started again, is one job)
 * with the results it reads, waits for a worker to finish it, and applies the outcome to the
 * run state exactly as the embedded job runner would (the same events, so the same report).
 * The engine's scheduler drives it unchanged: per-item chains without barriers, gathers as
 * joins here, skips of a failed item's dependents, the run's stop reasons.
 */
import { type Job, type Queue } from 'bullmq';
import { DailyLimitError } from '../../client/index.js';
import { DeflowError, isErrorCode } from '../../common/index.js';
import type { EventError } from '../contracts/events.js';
import { countReaders, type JobContext, type NodeOutcome, type NodeResult, type NodeRunners } from '../run/index.js';
import type { CompletionWatch, JobFinish } from './completion-watch.js';
import type { NodeJobData, NodeJobProgress, NodeJobResult } from './node-job.js';
import { nodeJobId, parseNodeJobId } from './queue-names.js';

/** How long finished jobs are kept in Redis (seconds): a run can be resumed within it. */
export const KEEP_JOBS_S = 7 * 86_400;
/** A job whose worker failed after its request id was recorded is handed to a worker again, this often. */
const MAX_JOB_RETRIES = 5;

export interface QueueRunnersOptions {
  readonly runId: string;
  readonly watch: CompletionWatch;
  /** Queue name of each step's pool. */
  readonly queueOf: (stepId: string) => string;
  /** Jobs of an earlier session of the run may exist: look at each before waiting. */
  readonly resumed: boolean;
  /** `--resubmit-unknown`: a job an earlier session left unknown is submitted again (it may be paid twice). */
  readonly resubmitUnknown?: boolean;
  /** `--resubmit-timed-out`: a job an earlier session left timed out is submitted again instead of polled (it may be paid twice). */
  readonly resubmitTimedOut?: boolean;
  /** The `traceparent` a worker's span of the job joins (the coordinator's span of it), when the run is traced. */
  readonly traceparentOf?: (step: string, index: number) => string | undefined;
}

export class QueueRunners implements NodeRunners {
  /** Pools of the nodes awaited now (by node id). */
  private readonly awaited = new Map<number, string>();
  private readonly deferred = new Map<string, number>();
  /** Nodes enqueued again as paid, not saved by an earlier session, with what their job cost (null: not stated). */
  private readonly paidEarlier = new Map<number, number | null>();
  /** Cache keys of the nodes done in this run (any session), for the jobs that read them. */
  private readonly cacheKeys = new Map<number, string>();
  private ctx: JobContext | undefined;

  constructor(private readonly options: QueueRunnersOptions) {}

  /** Progress a worker published: the report's `item-submitted` and `item-retry`. */
  readonly onProgress = (jobId: string, progress: NodeJobProgress): void => {
    const ctx = this.ctx;
    const parsed = parseNodeJobId(jobId);
    if (ctx === undefined || parsed === null || parsed.runId !== this.options.runId) return;
    const id = ctx.graph.nodeIndex(parsed.step, parsed.k);
    if (!this.awaited.has(id)) return;
    if (progress.t === 'submitted' && ctx.state.requestIdOf(id) !== progress.requestId) void ctx.state.submitted(id, progress.attempt, progress.requestId);
    if (progress.t === 'retry') void ctx.state.retrying(id, progress.attempt, progress.error);
  };

  /** A pool's daily window is used up (its jobs wait in the queue until it refills). */
  defer(pool: string, resetAt: number): void {
    this.deferred.set(pool, resetAt);
    setImmediate(() => this.checkDeferred());
  }

  async run(ctx: JobContext, id: number): Promise<NodeOutcome> {
    this.ctx = ctx;
    const { graph, state, control, budget } = ctx;
    const { step, k } = graph.nodeAt(id);
    this.awaited.set(id, step.task.pool);
    // The high end of its quote (its inputs are on a worker); an unpriced job, the highest price its step was quoted or charged.
    const high = ctx.pricer.high[id]!;
    const reserved = Number.isNaN(high) ? (ctx.pricer.fallback(step.id)?.amount ?? 0) : high;
    let charged = 0;
    try {
      if (budget.capped && !budget.reserve(reserved)) {
        if (!control.stopping) control.stop('over-budget');
        state.unstart(id);
        return 'unstarted';
      }
      const queueName = this.options.queueOf(step.id);
      const jobId = nodeJobId(this.options.runId, step.id, k);
      const queue = await this.options.watch.watch(queueName);
      const finished = this.options.watch.expect(queueName, jobId);
      const upstream: [number, NodeResult][] = [];
      const upstreamKeys: [number, string][] = [];
      for (const node of graph.dependencies(step.id, k)) {
        const u = node.step.offset + node.k;
        const result = ctx.results.get(u);
        if (result !== undefined) upstream.push([u, result]);
        const key = this.cacheKeys.get(u);
        if (key !== undefined) upstreamKeys.push([u, key]);
      }
      const traceparent = this.options.traceparentOf?.(step.id, k);
      let data: NodeJobData = {
        v: 1,
        run: this.options.runId,
        step: step.id,
        k,
        upstream,
        ...(upstreamKeys.length === 0 ? {} : { upstreamKeys }),
        ...(traceparent === undefined ? {} : { traceparent }),
      };
      if (this.options.resumed) {
        const carried = await this.clearForRetry(queue, jobId);
        if (carried !== undefined) {
          data = { ...data, ...carried };
          if (carried.paid !== undefined) this.paidEarlier.set(id, carried.paid.cost);
        }
      }
      await queue.add(step.id, data, { jobId, attempts: 1, removeOnComplete: { age: KEEP_JOBS_S }, removeOnFail: { age: KEEP_JOBS_S } });
      if (this.options.resumed) {
        const existing = await this.options.watch.lookAt(queueName, jobId);
        if (existing?.data.requestId !== undefined && state.requestIdOf(id) === null) await state.submitted(id, existing.data.attempt ?? 1, existing.data.requestId);
      }
      const outcome = await this.settle(ctx, id, queue, jobId, finished);
      if (typeof outcome !== 'string') {
        charged = outcome.charged;
        return outcome.outcome;
      }
      return outcome;
    } finally {
      this.awaited.delete(id);
      budget.settle(reserved, charged);
      if (this.deferred.size > 0) setImmediate(() => this.checkDeferred());
    }
  }

  /**
   * A job an earlier session of the run finished without a result worth keeping is removed, so
   * that it is enqueued afresh, as an embedded run's resume would run it again: a retryable
   * failure, a job no worker could run before anything was sent, and (with `--resubmit-unknown`)
   * an unknown one. A failure the service judged final, and every done job, stay as they are.
   * A job paid for whose result was not saved is enqueued again with its request id (returned
   * here), so that a worker fetches its result again: it is never submitted again.
   */
  private async clearForRetry(queue: Queue, jobId: string): Promise<Pick<NodeJobData, 'requestId' | 'attempt' | 'cacheKey' | 'paid'> | undefined> {
    const job = await this.jobOf(queue, jobId);
    if (job === undefined || !job.finishedOn) return undefined;
    const result = job.failedReason ? undefined : job.returnvalue;
    if (result?.outcome === 'unsaved') {
      const carried = { requestId: result.requestId, attempt: job.data.attempt ?? 1, cacheKey: job.data.cacheKey ?? null, paid: { cost: result.cost } };
      await job.remove();
      return carried;
    }
    if (result?.outcome === 'timed-out') {
      // Its job may still finish: a worker polls it and adopts its result, unless --resubmit-timed-out.
      await job.remove();
      if (this.options.resubmitTimedOut === true) return undefined;
      return { requestId: result.requestId, attempt: job.data.attempt ?? 1, cacheKey: job.data.cacheKey ?? null };
    }
    const unsent = job.data.intent === undefined && job.data.requestId === undefined;
    const again =
      result === undefined || result === null
        ? unsent
        : (result.outcome === 'failed' && result.retryable) || (result.outcome === 'unknown' && this.options.resubmitUnknown === true);
    if (again) await job.remove();
    return undefined;
  }

  /** Jobs are never picked up from a seed in queue mode: an existing job is found by its id. */
  resume(ctx: JobContext, id: number): Promise<NodeOutcome> {
    return this.run(ctx, id);
  }

  /** Waits for the job's end (or the run's stop) and applies it. */
  private async settle(ctx: JobContext, id: number, queue: Queue, jobId: string, finished: Promise<JobFinish>): Promise<NodeOutcome | { outcome: NodeOutcome; charged: number }> {
    const { control } = ctx;
    for (;;) {
      const first = await Promise.race([finished, stopped(ctx)]);
      if (first === 'stop') {
        const given = await this.giveUp(ctx, id, queue, jobId);
        if (given !== null) return given;
        const finish = await untilAbandoned(ctx, finished);
        if (finish === 'abandoned') {
          this.options.watch.forget(jobId);
          return 'abandoned';
        }
        return this.apply(ctx, id, queue, jobId, finish);
      }
      if (first.kind === 'failed' && first.data?.requestId !== undefined && first.attemptsMade <= MAX_JOB_RETRIES && !control.stopping) {
        // The job was submitted and the worker then failed: another worker polls its request id.
        const job = await this.jobOf(queue, jobId);
        finished = this.options.watch.expect(queue.name, jobId);
        await job?.retry('failed');
        continue;
      }
      return this.apply(ctx, id, queue, jobId, first);
    }
  }

  private async apply(ctx: JobContext, id: number, queue: Queue, jobId: string, finish: JobFinish): Promise<NodeOutcome | { outcome: NodeOutcome; charged: number }> {
    const { state, control } = ctx;
    if (finish.kind === 'failed') {
      if (finish.data?.requestId === undefined && finish.data?.intent !== undefined) {
        await state.unknown(id, `the worker running it failed after its submission was sent and before its answer was recorded: ${finish.reason}`);
        return 'unknown';
      }
      await state.failed(id, { code: 'E_QUEUE_WORKER', message: `a worker could not run it: ${finish.reason}` }, false);
      return 'failed';
    }
    const result: NodeJobResult = finish.result;
    switch (result.outcome) {
      case 'done': {
        ctx.results.put(id, result.result, countReaders(ctx, id));
        if (result.cacheKey !== null) this.cacheKeys.set(id, result.cacheKey);
        await state.done(id, { result: result.result, outputs: result.outputs, cached: result.cached, cacheKey: result.cacheKey });
        // The run's spend is counted afresh by every session from the queue's jobs (done ones of
        // earlier sessions included), so a job paid in an earlier session counts here too.
        const charged = result.cached ? 0 : (result.result.cost ?? this.paidEarlier.get(id) ?? state.quotedOf(id) ?? 0);
        if (charged > 0) ctx.pricer.observe(ctx.graph.nodeAt(id).step.id, charged);
        return { outcome: 'done', charged };
      }
      case 'failed':
        await state.failed(id, result.error, result.retryable);
        return 'failed';
      case 'unsaved': {
        // Paid, not saved: a later session of the run fetches it again by its request id.
        await state.unsaved(id, result.requestId, result.error, result.cost);
        return { outcome: 'failed', charged: result.cost ?? this.paidEarlier.get(id) ?? 0 };
      }
      case 'skipped':
        await state.skipped(id, result.reason);
        return 'skipped';
      case 'unknown':
        await state.unknown(id, result.reason);
        return 'unknown';
      case 'timed-out':
        // Its job still runs at the service: a later session polls it (never submits it again).
        await state.timedOut(id, result.requestId, result.error);
        return 'timed-out';
      case 'refused': {
        control.stop('refused', refusal(result.error));
        // Nothing was created: the node waits for the next run, which enqueues it again.
        await (await this.jobOf(queue, jobId))?.remove().catch(() => {});
        state.unstart(id);
        return 'unstarted';
      }
    }
  }

  /**
   * The run stops: a job no worker started is taken back (or, in a pool whose daily window is
   * used up, left waiting for it) and the node waits for the next run. Null when a worker has it.
   */
  private async giveUp(ctx: JobContext, id: number, queue: Queue, jobId: string): Promise<NodeOutcome | null> {
    const job = await this.jobOf(queue, jobId);
    if (job === undefined) {
      this.options.watch.forget(jobId);
      ctx.state.unstart(id);
      return 'unstarted';
    }
    const where = await job.getState();
    const untouched = job.data.intent === undefined && job.data.requestId === undefined;
    if (!untouched || !(where === 'waiting' || where === 'delayed' || where === 'prioritized')) return null;
    const { pool } = ctx.graph.nodeAt(id).step.task;
    if (!this.deferred.has(pool)) {
      try {
        await job.remove();
      } catch {
        return null; // a worker took it meanwhile
      }
    }
    this.options.watch.forget(jobId);
    ctx.state.unstart(id);
    return 'unstarted';
  }

  /** Stops the run once everything still awaited waits for a used-up daily window. */
  private checkDeferred(): void {
    const ctx = this.ctx;
    if (ctx === undefined || ctx.control.stopping || this.awaited.size === 0) return;
    for (const pool of this.awaited.values()) if (!this.deferred.has(pool)) return;
    const [pool, resetAt] = [...this.deferred.entries()].sort((a, b) => a[1] - b[1])[0]!;
    ctx.control.stop(
      'daily-limit',
      new DailyLimitError({ status: 429, serviceMessage: `the daily limit of the "${pool}" rate-limit pool is used up; its jobs wait in the queue for it`, method: 'POST', path: pool, resetAt }),
    );
  }

  private async jobOf(queue: Queue, jobId: string): Promise<Job<NodeJobData, NodeJobResult> | undefined> {
    return (await queue.getJob(jobId)) as Job<NodeJobData, NodeJobResult> | undefined;
  }
}

function stopped(ctx: JobContext): Promise<'stop'> {
  if (ctx.control.stopping) return Promise.resolve('stop');
  return new Promise((resolve) => ctx.control.onStop(() => resolve('stop')));
}

/** Waits for the job's end until polls are abandoned (the grace period of an interrupt). */
async function untilAbandoned(ctx: JobContext, finished: Promise<JobFinish>): Promise<JobFinish | 'abandoned'> {
  const poll = ctx.control.pollSignal();
  try {
    if (poll.signal.aborted) return 'abandoned';
    return await Promise.race([
      finished,
      new Promise<'abandoned'>((resolve) => poll.signal.addEventListener('abort', () => resolve('abandoned'), { once: true })),
    ]);
  } finally {
    poll.release();
  }
}

function refusal(error: EventError): DeflowError {
  return new DeflowError(isErrorCode(error.code) ? error.code : 'E_API', error.message);
}
