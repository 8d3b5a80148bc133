/**
 * The life of one node: render its request, ask the cache, reserve its price, submit (the
 * intent recorded between the governor's permit and the POST), poll, resubmit a retryable
 * failure up to the step's `retries`, fetch the result in the form its consumers need, save
 * it, and finish. Every state change goes through the run state.
 */
import { relative, sep } from 'node:path';
import type { RequestFields } from '../../client/index.js';
import type { GraphStep, PreparedScope } from '../../workflow/index.js';
import { evaluateCondition, renderSavePath } from '../../workflow/index.js';
import type { CacheQuery } from '../cache/index.js';
import { digestRequest, resolveRequest } from './field-resolver.js';
import { jobFailureError, toEventError, unsavedError } from './job-errors.js';
import { collectWithRetry, poll, readCost } from './job-poll.js';
import { JobTimeoutError } from './poll/poller.js';
import type { AdoptFrom, JobContext, NodeOutcome } from './job-context.js';
import { submitJob, waitForAdoption } from './job-submit.js';
import { type NodeResult, toStepResult } from '../contracts/node-result.js';
import { syncResult } from './result-passing.js';
import { NODE } from './run-state.js';
import { saveOutput } from './save-output.js';
import { measureInput } from './poll/input-measure.js';
import { PER_INPUT_SUFFIX } from './poll/poll-memory.js';

/** A node's request, rendered once for all its attempts. */
interface PreparedNode {
  readonly step: GraphStep;
  readonly fields: RequestFields;
  readonly savePath: string | undefined;
  readonly query: CacheQuery;
  /** Poll estimator key: task and model (and `per-input` when the input was measured). */
  readonly key: string;
  /** The input's size relative to its key's reference size, when measured (input-measure.ts). */
  readonly scale: number | undefined;
}

/** Runs node `id` (its upstream nodes are done) to an outcome. Rejects only on a recorder failure. */
export async function runNode(ctx: JobContext, id: number): Promise<NodeOutcome> {
  // Paid for in an earlier run: its result is fetched, the job is never submitted again.
  const paidJob = ctx.state.isPaid(id) ? ctx.state.requestIdOf(id) : null;
  if (paidJob !== null) return resumeNode(ctx, id, paidJob, Math.max(1, ctx.state.attempts[id]!), null);
  const prepared = await prepareNode(ctx, id);
  if (typeof prepared === 'string') return prepared;
  const cached = await ctx.cache.lookup(prepared.query);
  if (cached.hit) return finish(ctx, id, prepared, cached.hit, true, cached.key);
  const reserved = await reserveFor(ctx, id, prepared);
  if (typeof reserved === 'string') return reserved;
  return driveJob(ctx, id, prepared, cached.key, reserved, undefined);
}

/**
 * An item an earlier session of the run left unknown: its job is adopted if a verified delivery
 * naming it arrives within the adoption wait (then polled, saved and charged like any job), else
 * it stays unknown.
 */
export async function adoptNode(ctx: JobContext, id: number, from: AdoptFrom, reason: string): Promise<NodeOutcome> {
  const found = await waitForAdoption(ctx, id, from);
  if (found === null) {
    await ctx.state.unknown(id, reason);
    return 'unknown';
  }
  const attempt = Math.max(1, found.attempt);
  await ctx.state.submitted(id, attempt, found.requestId, true);
  return resumeNode(ctx, id, found.requestId, attempt);
}

/**
 * Picks up a job an earlier run submitted: polls it, and goes on as for any job. `submittedAt`
 * (clock ms, from the journal) dates the first poll: a job accepted long ago is asked at once.
 */
export async function resumeNode(ctx: JobContext, id: number, requestId: string, attempt: number, cacheKey: string | null = null, submittedAt: number | null = null): Promise<NodeOutcome> {
  const prepared = await prepareNode(ctx, id);
  if (typeof prepared === 'string') return prepared;
  // Whatever path saves a paid result (a re-fetch, an adopted job), it enters the result cache:
  // a job whose key was not carried over (a paid item taken over by a new run) gets it now.
  const key = cacheKey ?? (await ctx.cache.lookup(prepared.query, { keyOnly: true }).then((answer) => answer.key, () => null));
  // Already submitted: held whatever the budget says (nothing when it is paid for already).
  const high = ctx.pricer.high[id]!;
  const amount = Number.isNaN(high) || ctx.state.isPaid(id) ? 0 : high;
  ctx.budget.hold(amount);
  return driveJob(ctx, id, prepared, key, amount, { requestId, attempt, acceptedAt: ctx.clock.now(), ...(submittedAt === null ? {} : { submittedAt }) });
}

/** Evaluates `if`, renders the request and the save path; a problem fails the item. */
async function prepareNode(ctx: JobContext, id: number): Promise<PreparedNode | NodeOutcome> {
  const { graph, state } = ctx;
  const { step, k } = graph.nodeAt(id);
  const upstreamIds: number[] = [];
  for (const node of graph.dependencies(step.id, k)) upstreamIds.push(node.step.offset + node.k);
  const upstream = upstreamIds.map((u) => ctx.results.get(u)).filter((r): r is NodeResult => r !== undefined);
  const lookup = (stepId: string, j: number) => {
    const result = ctx.results.get(graph.nodeIndex(stepId, j));
    return result === undefined ? undefined : toStepResult(result);
  };
  let prepared: PreparedNode | 'skip';
  try {
    const scope = ctx.scope(step.id, k, lookup);
    if (!evaluateCondition(step.def.if, scope)) prepared = 'skip';
    else prepared = renderNode(ctx, id, step, k, scope, upstream, upstreamIds);
  } catch (error) {
    await state.failed(id, toEventError(error, ctx.client.redact), false);
    return 'failed';
  }
  if (prepared !== 'skip') return measured(ctx, prepared);
  await state.skipped(id, 'its if: condition is false', 'condition');
  return 'skipped';
}

/** The node with its input measured: its key becomes the task and model's per-input key. */
async function measured(ctx: JobContext, prepared: PreparedNode): Promise<PreparedNode> {
  if (ctx.durations === undefined) return prepared;
  const size = await measureInput(prepared.step.task.id, prepared.fields, ctx.durations);
  if (size === undefined || !(size > 0)) return prepared;
  const key = `${prepared.key}${PER_INPUT_SUFFIX}`;
  ctx.stepKeys.set(prepared.step.id, key);
  return { ...prepared, key, scale: ctx.estimator.relativeSize(key, size) };
}

function renderNode(ctx: JobContext, id: number, step: GraphStep, k: number, scope: PreparedScope, upstream: readonly NodeResult[], upstreamIds: readonly number[]): PreparedNode {
  const { graph, state } = ctx;
  const { fields, model } = resolveRequest(graph, step, k, scope, upstream, ctx.blobs);
  const savePath = renderSavePath(graph, step, scope);
  const query: CacheQuery = { node: state.node(id), task: step.task.id, fields, upstream: upstreamIds.map((u) => state.node(u)) };
  const key = `${step.task.id}\u0000${model ?? ''}`;
  ctx.stepKeys.set(step.id, key);
  return { step, fields, savePath, query, key, scale: undefined };
}

/**
 * The USD to hold for a node (run-pricer.ts): its quote, re-priced from its inputs when it was
 * estimated; an unpriced job is priced by its twin now that its inputs exist, else held at the
 * highest price seen for its step. A submission that would take spent plus reserved past the
 * cap is not sent: the run stops (over budget) and the refusal is kept for its message.
 */
async function reserveFor(ctx: JobContext, id: number, prepared: PreparedNode): Promise<number | NodeOutcome> {
  if (!ctx.budget.capped) return 0;
  let held = await ctx.pricer.reservation(id, prepared.fields);
  if (held === undefined) {
    const watch = ctx.control.submissionSignal();
    try {
      const amount = await ctx.client.price(prepared.step.task.id, prepared.fields, { version: prepared.step.def.apiVersion, signal: watch.signal });
      held = { amount, how: 'its price, asked of its twin just before sending' };
    } catch (error) {
      if (ctx.control.stopping) {
        ctx.state.unstart(id);
        return 'unstarted';
      }
      held = ctx.pricer.fallback(prepared.step.id);
      if (held === undefined) {
        const event = toEventError(error, ctx.client.redact);
        await ctx.state.failed(id, { ...event, message: `cannot price the job under the budget: ${event.message}` }, true);
        return 'failed';
      }
    } finally {
      watch.release();
    }
  }
  if (!ctx.control.stopping && ctx.budget.reserve(held.amount)) return held.amount;
  if (!ctx.control.stopping) {
    const node = ctx.state.node(id);
    ctx.budget.refuse({ step: node.step, index: node.index, key: node.key }, held.amount, held.how);
    ctx.control.stop('over-budget');
  }
  ctx.state.unstart(id);
  return 'unstarted';
}

/** A job of an earlier run to pick up instead of submitting. */
interface ExistingJob {
  readonly requestId: string;
  readonly attempt: number;
  readonly acceptedAt: number;
  /** When the earlier session journalled it as accepted (clock ms). */
  readonly submittedAt?: number;
}

/** Submits (unless `existing`), polls, resubmits retryable failures, and finishes; settles the reservation. */
async function driveJob(ctx: JobContext, id: number, prepared: PreparedNode, cacheKey: string | null, reserved: number, existing: ExistingJob | undefined): Promise<NodeOutcome> {
  const { state } = ctx;
  const { step } = prepared;
  // Only a journal reads the digest; hashing every request for nothing costs a fan-out dearly.
  const digest = state.recording ? digestRequest(step.task.id, prepared.fields) : '';
  const jobSignal = ctx.control.pollSignal();
  let charged = 0;
  // A timed-out job may still be charged: what it holds against the cap stays held.
  let stillHeld = false;
  try {
    for (let attempt = existing?.attempt ?? state.attempts[id]! + 1; ; attempt++) {
      let job: { requestId: string; acceptedAt: number; submittedAt?: number };
      if (existing !== undefined && attempt === existing.attempt) job = existing;
      else {
        const submitted = await submitJob(ctx, id, step, prepared.fields, attempt, digest, cacheKey);
        if (typeof submitted === 'string') return submitted;
        if (submitted.kind === 'sync') {
          // Charged at once, and its answer states no price: the quoted one is what was charged.
          const price = state.quotedOf(id);
          if (price !== null) charged += price;
          return await finish(ctx, id, prepared, { ...syncResult(step.task, submitted.result), cost: price }, false, cacheKey);
        }
        job = submitted;
      }
      const paidBefore = state.isPaid(id);
      let polled = await poll(ctx, id, step, prepared.key, job, jobSignal.signal, prepared.scale);
      // A timeout stops the waiting, never the paying: a retry polls the same job again (for
      // another `timeout`), since a new submission could pay twice while the old job finishes.
      for (let retry = attempt; polled instanceof JobTimeoutError; retry++) {
        const error = toEventError(polled, ctx.client.redact);
        if (retry > step.def.retries || ctx.control.stopping) {
          stillHeld = true;
          await state.timedOut(id, job.requestId, error);
          return 'timed-out';
        }
        state.retryingSameJob(id, retry + 1, job.requestId, error);
        // Its age teaches the poll estimator nothing (`submittedAt`); the timeout counts afresh.
        job = { requestId: job.requestId, acceptedAt: ctx.clock.now(), submittedAt: job.submittedAt ?? job.acceptedAt };
        polled = await poll(ctx, id, step, prepared.key, job, jobSignal.signal, prepared.scale);
      }
      if (typeof polled === 'string') return polled;
      const cost = readCost(polled) ?? (polled.status === 'done' ? (state.quotedOf(id) ?? 0) : 0);
      // A job paid for in an earlier session was charged then.
      if (!paidBefore) charged += cost;
      if (polled.status === 'error') {
        const error = jobFailureError(job.requestId, polled.error);
        const retryable = polled.error?.retryable === true;
        if (retryable && attempt <= step.def.retries && !ctx.control.stopping) {
          await state.retrying(id, attempt + 1, error);
          continue;
        }
        await state.failed(id, error, retryable);
        return 'failed';
      }
      // Done means paid: journalled before the download, so that nothing that happens to the
      // result (a cut transfer, a full disk, a crash) ever leads to a second submission.
      if (!paidBefore) await state.paid(id, job.requestId, polled.resultUrl, cost);
      let result: NodeResult;
      state.downloading(id, job.requestId);
      try {
        result = await collectWithRetry(ctx, step, job, polled, cost, jobSignal.signal);
      } catch (error) {
        if (jobSignal.signal.aborted) return 'abandoned';
        await state.unsaved(id, job.requestId, unsavedError(job.requestId, error, ctx.client.redact), cost);
        return 'failed';
      }
      return await finish(ctx, id, prepared, result, false, cacheKey);
    }
  } finally {
    jobSignal.release();
    if (!stillHeld) ctx.budget.settle(reserved, charged);
    if (charged > 0) ctx.pricer.observe(step.id, charged);
  }
}

/** Saves the result, stores it for readers and in the cache, and marks the node done. */
async function finish(ctx: JobContext, id: number, prepared: PreparedNode, result: NodeResult, cached: boolean, cacheKey: string | null): Promise<NodeOutcome> {
  const { graph, state } = ctx;
  const outputs: string[] = [];
  let kept = result;
  if (prepared.savePath !== undefined) {
    try {
      await saveOutput(result, prepared.savePath, graph.outputDir, ctx.blobs);
    } catch (error) {
      if (!cached && result.requestId !== null && state.isPaid(id)) {
        await state.unsaved(id, result.requestId, unsavedError(result.requestId, error, ctx.client.redact), result.cost);
      } else await state.failed(id, toEventError(error, ctx.client.redact), false);
      return 'failed';
    }
    outputs.push(relative(graph.workflow.dir, prepared.savePath).split(sep).join('/'));
    kept = { ...result, path: prepared.savePath };
  }
  if (!cached && cacheKey !== null) await ctx.cache.store(cacheKey, prepared.query, kept);
  ctx.results.put(id, kept, countReaders(ctx, id));
  await state.done(id, { result: kept, outputs, cached, cacheKey });
  return 'done';
}

/** Downstream nodes that may still read node `id`'s result (those already skipped never will). */
export function countReaders(ctx: Pick<JobContext, 'graph' | 'state'>, id: number): number {
  const { step, k } = ctx.graph.nodeAt(id);
  let readers = 0;
  for (const dependent of ctx.graph.dependents(step.id, k)) {
    const status = ctx.state.status[dependent.step.offset + dependent.k];
    if (status === NODE.pending || status === NODE.ready || status === NODE.running) readers++;
  }
  return readers;
}
