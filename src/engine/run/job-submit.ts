/**
 * One submission of a node's job. The intent is recorded after the rate governor's permit and
 * before the POST (through the gated governor, or just before the call when the client's
 * governor cannot run hooks). A submission still waiting for its permit when the run stops is
 * cancelled: nothing was sent, so the node simply waits for the next run. Between the permit
 * and the intent a submission also waits for a slot of the submit window (submit-window.ts),
 * which bounds how many items a crash can leave `unknown`.
 */
import type { RequestFields } from '../../client/index.js';
import type { GraphStep } from '../../workflow/index.js';
import { DailyLimitError } from '../../client/index.js';
import { judgeSubmitError, toEventError } from './job-errors.js';
import type { AdoptFrom, JobContext, NodeOutcome } from './job-context.js';

/** An accepted submission: a job to poll, or a synchronous task's answer. */
export type Submitted = { kind: 'job'; requestId: string; acceptedAt: number } | { kind: 'sync'; result: Readonly<Record<string, unknown>> };

/**
 * One submission. The intent is recorded once the governor lets the request go, never while it
 * waits. A pool whose daily window is used up (known from this run or from its journal) gets
 * nothing: the node is deferred, or with `--wait-daily` it waits for the reset and goes on.
 */
export async function submitJob(ctx: JobContext, id: number, step: GraphStep, fields: RequestFields, attempt: number, digest: string, cacheKey: string | null): Promise<Submitted | NodeOutcome> {
  for (;;) {
    if (ctx.daily !== undefined) {
      const closed = ctx.daily.closedUntil(step.task.pool);
      if (closed !== undefined) {
        if (!ctx.daily.wait || Number.isNaN(closed)) return defer(ctx, id, step, closed);
        if (!(await waitForDay(ctx, step))) {
          ctx.state.unstart(id);
          return 'unstarted';
        }
      }
    }
    const outcome = await submitOnce(ctx, id, step, fields, attempt, digest, cacheKey);
    if (outcome !== 'daily') return outcome;
  }
}

/** Defers a node to its pool's daily reset. */
async function defer(ctx: JobContext, id: number, step: GraphStep, resetAt: number): Promise<NodeOutcome> {
  ctx.daily!.counted(step.task.pool);
  await ctx.state.deferred(id, step.task.pool, Number.isNaN(resetAt) ? null : resetAt);
  return 'deferred';
}

/** `--wait-daily`: sleeps until the pool's day refills; false when the run stopped meanwhile. */
async function waitForDay(ctx: JobContext, step: GraphStep): Promise<boolean> {
  const watch = ctx.control.submissionSignal();
  try {
    return await ctx.daily!.waitFor(step.task.pool, watch.signal);
  } catch {
    return false;
  } finally {
    watch.release();
  }
}

/** One POST; `'daily'` when the pool's daily window turned out to be used up (nothing was created). */
async function submitOnce(ctx: JobContext, id: number, step: GraphStep, fields: RequestFields, attempt: number, digest: string, cacheKey: string | null): Promise<Submitted | NodeOutcome | 'daily'> {
  const { state, control } = ctx;
  if (control.submissionsStopped) {
    state.unstart(id);
    return 'unstarted';
  }
  const controller = new AbortController();
  let sent = false;
  let recorderError: unknown;
  let release: (() => void) | undefined;
  const intent = async (): Promise<void> => {
    release = await ctx.window.acquire(controller.signal);
    sent = true;
    try {
      await state.intent(id, attempt, digest, cacheKey);
    } catch (error) {
      recorderError = error;
      throw error;
    }
  };
  // Cancels the submission while it waits for the governor; once sent it must get its answer.
  const unwatch = control.watchSubmissions((reason) => {
    if (!sent) controller.abort(reason);
  });
  try {
    if (ctx.gate) ctx.gate.arm(controller.signal, intent);
    else await intent();
    const hooks = ctx.webhooks !== null && acceptsWebhook(step) ? ctx.webhooks : null;
    const body = hooks === null ? fields : { ...fields, ...(hooks.fieldsFor?.(state.node(id), attempt) ?? hooks.fields) };
    const answer = await ctx.client.submit(step.task.id, body, { version: step.def.apiVersion, signal: controller.signal });
    if (answer.kind === 'sync') return answer;
    hooks?.answered?.(answer.requestId);
    await state.submitted(id, attempt, answer.requestId);
    return { kind: 'job', requestId: answer.requestId, acceptedAt: ctx.clock.now() };
  } catch (error) {
    if (recorderError !== undefined) throw recorderError;
    if (!sent && controller.signal.aborted) {
      state.unstart(id);
      return 'unstarted';
    }
    const verdict = judgeSubmitError(error);
    if (verdict.kind === 'stop' && verdict.reason === 'daily-limit' && ctx.daily !== undefined) {
      // This pool only: the node is deferred (its `deferred` record settles the intent) and the rest of the run goes on.
      ctx.daily.close(step.task.pool, error instanceof DailyLimitError ? error.resetAt : undefined);
      return 'daily';
    }
    if (verdict.kind === 'stop') {
      // Refused before anything was created: the node waits for the next run.
      control.stop(verdict.reason, error);
      if (sent) await state.withdrawn(id, attempt, toEventError(error, ctx.client.redact).message);
      state.unstart(id);
      return 'unstarted';
    }
    if (verdict.kind === 'unknown') {
      release?.();
      release = undefined;
      const adopted = ctx.webhooks?.adopt !== undefined && acceptsWebhook(step) ? await waitForAdoption(ctx, id, { attempt }) : null;
      if (adopted !== null) {
        await state.submitted(id, attempt, adopted.requestId, true);
        return { kind: 'job', requestId: adopted.requestId, acceptedAt: ctx.clock.now() };
      }
      await state.unknown(id, verdict.reason);
      return 'unknown';
    }
    await state.failed(id, toEventError(error, ctx.client.redact), verdict.retryable);
    return 'failed';
  } finally {
    release?.();
    unwatch();
    ctx.gate?.disarm(controller.signal);
  }
}

/**
 * The answer was lost: a verified delivery whose URL names this item and attempt tells its job
 * (docs/running.md#adopted-items-an-unknown-item-whose-job-a-webhook-names). Waits up to the run's adoption wait, less if the run stops.
 */
export async function waitForAdoption(ctx: JobContext, id: number, from: AdoptFrom): Promise<{ readonly attempt: number; readonly requestId: string } | null> {
  const stop = new AbortController();
  const unwatch = ctx.control.watchSubmissions((reason) => stop.abort(reason));
  try {
    return await ctx.webhooks!.adopt!(ctx.state.node(id), from, stop.signal);
  } finally {
    unwatch();
  }
}

/** Whether the task's endpoint takes `webhook_url` (synchronous ones do not). */
function acceptsWebhook(step: GraphStep): boolean {
  return step.task.fields.some((field) => field.name === 'webhook_url');
}

