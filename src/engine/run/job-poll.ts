/**
 * The polling half of a node's life: poll its job until it is final (transient failures wait and
 * ask again; a paid job whose status can no longer be read is unsaved or lost, never bought
 * again), read its charge, and fetch its result (once more if the first transfer fails).
 */
import { DailyLimitError } from '../../client/index.js';
import type { JobStatus } from '../../client/index.js';
import type { GraphStep } from '../../workflow/index.js';
import { isAccountRefusal, isTransientPollError, lostError, toEventError, unsavedError } from './job-errors.js';
import type { JobContext, NodeOutcome } from './job-runner.js';
import type { NodeResult } from './node-result.js';
import { PollDeadlineError, pollJob } from './poller.js';
import { collectJobResult } from './result-passing.js';

/** Polls that fail this many times in a row (after the client's own retries) make the node unknown. */
const MAX_POLL_FAILURES = 5;

/** Polls until the job is final; transient failures wait and ask again. */
export async function poll(ctx: JobContext, id: number, step: GraphStep, key: string, job: { requestId: string; acceptedAt: number; submittedAt?: number }, signal: AbortSignal): Promise<JobStatus | NodeOutcome> {
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
        const gone = (error as { code?: string }).code === 'E_API_NOT_FOUND';
        await state.unsaved(id, requestId, gone ? lostError(requestId, event) : unsavedError(requestId, error, ctx.client.redact), null);
        return 'failed';
      }
      if ((error as { code?: string }).code === 'E_JOB_TIMEOUT') await state.failed(id, event, false);
      else await state.unknown(id, `cannot read the status of job ${requestId}: ${event.message}`);
      return (error as { code?: string }).code === 'E_JOB_TIMEOUT' ? 'failed' : 'unknown';
    }
  }
}

/** Fetches a done job's result, once more if the first transfer fails. */
export async function collectWithRetry(ctx: JobContext, step: GraphStep, requestId: string, status: JobStatus, cost: number, signal: AbortSignal): Promise<NodeResult> {
  const timeout = step.def.timeoutSeconds;
  const context = { client: ctx.client, blobs: ctx.blobs, signal, deadlineMs: timeout === undefined ? undefined : timeout * 1000 };
  const needs = { content: ctx.needsContent(step) };
  try {
    return await collectJobResult(context, step.task, requestId, status, cost, needs);
  } catch (error) {
    if (signal.aborted || (error as { code?: string }).code === 'E_RESULT_JSON') throw error;
    return collectJobResult(context, step.task, requestId, status, cost, needs);
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
