/**
 * The polling half of a node's life: poll its job until it is final (transient failures wait and
 * ask again; a paid job whose status can no longer be read is unsaved or lost, never bought
 * again), read its charge, and fetch its result (once more if the first transfer fails).
 */
import { DailyLimitError } from '../../client/index.js';
import type { JobStatus } from '../../client/index.js';
import { DeflowError, isDeflowError } from '../../common/index.js';
import { JOBS_STATUS_POOL } from '../../service/index.js';
import type { GraphStep } from '../../workflow/index.js';
import { isAccountRefusal, isTransientPollError, lostError, toEventError, unsavedError } from './job-errors.js';
import type { JobContext, NodeOutcome } from './job-context.js';
import type { NodeResult } from '../contracts/node-result.js';
import { JobTimeoutError, PollDeadlineError, pollJob } from './poll/poller.js';
import { noticeMatters, statusHasRoom } from './poll/notice-urgency.js';
import { collectJobResult } from './result-passing.js';

/**
 * With webhooks, polls are the fallback for a lost delivery: planned waits are this many times
 * the usual ones (a delivery normally ends the wait first, and then no status request is sent).
 */
const PUSHED_STRETCH = 3;

/** Polls that fail this many times in a row (after the client's own retries) make the node unknown. */
const MAX_POLL_FAILURES = 5;

/**
 * Polls until the job is final; transient failures wait and ask again. A job still running at
 * the step's `timeout` is returned as its {@link JobTimeoutError} (unless it was paid for
 * already): the caller polls it again or leaves it `timed-out`, never submits it again.
 */
export async function poll(ctx: JobContext, id: number, step: GraphStep, key: string, job: { requestId: string; acceptedAt: number; submittedAt?: number }, signal: AbortSignal, scale?: number): Promise<JobStatus | NodeOutcome | JobTimeoutError> {
  const { state, control } = ctx;
  const { requestId, acceptedAt, submittedAt } = job;
  let failures = 0;
  for (;;) {
    try {
      return await pollJob({
        client: ctx.client,
        clock: ctx.clock,
        estimator: ctx.estimator,
        key,
        kind: step.task.resultKind,
        requestId,
        acceptedAt,
        ...(submittedAt === undefined ? {} : { submittedAt }),
        version: step.def.apiVersion,
        timeoutMs: step.def.timeoutSeconds === undefined ? undefined : step.def.timeoutSeconds * 1000,
        onProgress: (status) => state.progress(id, status.status, status.progress),
        signal,
        deadline: () => control.pollDeadline,
        wait: ctx.webhooks === null ? undefined : (ms, waitSignal) => ctx.webhooks!.wakeups.sleep(requestId, ms, ctx.clock, waitSignal),
        pushedStretch: ctx.webhooks === null ? undefined : PUSHED_STRETCH,
        scale,
        roomy: () => statusRoomy(ctx, step),
      });
    } catch (error) {
      if (signal.aborted || error instanceof PollDeadlineError) return 'abandoned';
      if (error instanceof DailyLimitError || isAccountRefusal(error)) {
        control.stop(error instanceof DailyLimitError ? 'daily-limit' : 'refused', error);
        return 'abandoned';
      }
      if (isTransientPollError(error) && ++failures < MAX_POLL_FAILURES) {
        await ctx.clock.sleep(5000 * failures, signal).catch(() => {});
        continue;
      }
      const event = toEventError(error, ctx.client.redact);
      if (state.isPaid(id)) {
        // Paid for earlier: never bought again. When the service no longer knows the job, its result is lost.
        const gone = isDeflowError(error, 'E_API_NOT_FOUND');
        await state.unsaved(id, requestId, gone ? lostError(requestId, event) : unsavedError(requestId, error, ctx.client.redact), null);
        return 'failed';
      }
      if (error instanceof JobTimeoutError) return error;
      await state.unknown(id, `cannot read the status of job ${requestId}: ${event.message}`);
      return 'unknown';
    }
  }
}

/**
 * Whether the job-status pool has room to spare for `step`'s jobs: it answered without
 * rate-limit headers (no limit), so status requests cost nothing another job needs; or it is
 * limited, has room now, and seeing the step's jobs done at once opens a downstream pool's
 * window sooner (notice-urgency.ts). Otherwise a limited pool is spent where a job most likely
 * just finished. Undefined before the pool's first answer (the poller's status probe).
 */
function statusRoomy(ctx: JobContext, step: GraphStep): boolean | undefined {
  const governor = ctx.client.governor;
  if (!governor) return false;
  const views = governor.describe();
  const status = views.find((bucket) => bucket.bucket === JOBS_STATUS_POOL);
  // Not asked yet (or its first answer is still out): not known to have room or not.
  if (status === undefined || status.state === 'unknown' || status.state === 'learning') return undefined;
  if (status.state === 'unthrottled') return true;
  return statusHasRoom(views) && noticeMatters(ctx.graph, step, views);
}

/**
 * Fetches a done job's result, once more if the first transfer fails, both within what is
 * left of the step's `timeout` (counted from the job's acceptance, as polling counts it): a
 * slow or stalled result server ends as a coded E_TRANSFER error inside the step's timeout.
 */
export async function collectWithRetry(ctx: JobContext, step: GraphStep, job: { requestId: string; acceptedAt: number }, status: JobStatus, cost: number, signal: AbortSignal): Promise<NodeResult> {
  const { requestId } = job;
  const timeout = step.def.timeoutSeconds;
  const endsAt = timeout === undefined ? undefined : job.acceptedAt + timeout * 1000;
  const needs = { content: ctx.needsContent(step) };
  const left = () => (endsAt === undefined ? undefined : endsAt - ctx.clock.now());
  const attempt = (ms: number | undefined) => {
    const deadline = ms === undefined ? {} : { deadlineMs: ms, deadlineLabel: `what was left of the step's timeout of ${timeout} s` };
    return collectJobResult({ client: ctx.client, blobs: ctx.blobs, signal, ...deadline }, step.task, requestId, status, cost, needs);
  };
  const first = left();
  if (first !== undefined && first <= 0) {
    throw new DeflowError('E_TRANSFER', `job ${requestId}: no time left of the step's timeout (${timeout} s) to fetch its result`, { details: { requestId, timeoutSeconds: timeout } });
  }
  try {
    return await attempt(first);
  } catch (error) {
    if (signal.aborted || isDeflowError(error, 'E_RESULT_JSON')) throw error;
    const again = left();
    // No time left for a second try: the first one's error says what happened.
    if (again !== undefined && again <= 0) throw error;
    return attempt(again);
  }
}

/** The job's actual charge from its status (`price.amount`, or a bare number), when present. */
export function readCost(status: JobStatus): number | undefined {
  const price = status.raw.price;
  if (typeof price === 'number' && Number.isFinite(price)) return price;
  if (typeof price === 'object' && price !== null) {
    const amount = (price as { amount?: unknown }).amount;
    if (typeof amount === 'number' && Number.isFinite(amount)) return amount;
  }
  return undefined;
}
