/**
 * `deflow status --queue URL`: a queue run's progress read from Redis (the queue's state is
 * the run's state): items per step and state, the unknown items, the workers seen, and the
 * rates the shared governor learned. Read only; works while the run goes on.
 */
import type { Redis } from 'ioredis';
import { roundUsd } from '../../common/index.js';
import { accountPrefix } from './account-scope.js';
import type { NodeJobData, NodeJobResult } from './node-job.js';
import { BULL_PREFIX, nodeJobId, queueName } from './queue-names.js';
import { readWorkerPresence, type WorkerPresence } from './worker-presence.js';
import { listQueueRuns, type QueueRunMeta, readRun } from './run-registry.js';

export interface QueueStepStatus {
  readonly step: string;
  readonly pool: string;
  readonly items: number;
  readonly done: number;
  readonly cached: number;
  /** Submitted, not finished. */
  readonly running: number;
  /** Enqueued, not submitted yet. */
  readonly waiting: number;
  /** Waiting for a used-up daily window (or handed back for a moment). */
  readonly deferred: number;
  readonly unknown: number;
  readonly failed: number;
  readonly skipped: number;
  /** Not enqueued yet (their inputs are not ready, or the coordinator is not running). */
  readonly pending: number;
  /** USD charged by its done items. */
  readonly cost: number;
}

export interface QueueRunStatusReport {
  readonly run: QueueRunMeta;
  readonly steps: readonly QueueStepStatus[];
  readonly unknowns: readonly { readonly node: string; readonly reason: string }[];
  /** The account's workers: running, stopped (closed cleanly) or dead (heartbeat expired), with their last heartbeat (real epoch ms). */
  readonly workers: readonly WorkerPresence[];
  /** Rate limits the shared governor learned, per bucket. */
  readonly rates: readonly { readonly bucket: string; readonly limit: number; readonly window_seconds: number; readonly daily_remaining: number | null }[];
}

/** The run `ref` names (a run id, or a workflow path for its newest run), or the newest run. */
export async function findQueueRun(redis: Redis, scope: string, ref: { readonly runId?: string; readonly workflow?: string }): Promise<QueueRunMeta | undefined> {
  if (ref.runId !== undefined) return readRun(redis, scope, ref.runId);
  const runs = await listQueueRuns(redis, scope);
  return ref.workflow === undefined ? runs[0] : runs.find((run) => run.workflow === ref.workflow);
}

/** Reads every node's job of `run` (pipelined; a few commands per item). */
export async function readQueueStatus(redis: Redis, scope: string, run: QueueRunMeta): Promise<QueueRunStatusReport> {
  const steps: QueueStepStatus[] = [];
  const unknowns: { node: string; reason: string }[] = [];
  for (const step of run.steps) {
    const queue = queueName(scope, step.pool);
    const counts = { done: 0, cached: 0, running: 0, waiting: 0, deferred: 0, unknown: 0, failed: 0, skipped: 0, pending: 0, cost: 0 };
    for (let from = 0; from < step.items; from += 500) {
      const pipeline = redis.pipeline();
      const ids: string[] = [];
      for (let k = from; k < Math.min(step.items, from + 500); k++) {
        const id = nodeJobId(run.runId, step.id, k);
        ids.push(id);
        pipeline.hmget(`${BULL_PREFIX}:${queue}:${id}`, 'finishedOn', 'failedReason', 'returnvalue', 'data');
        pipeline.zscore(`${BULL_PREFIX}:${queue}:delayed`, id);
      }
      const replies = (await pipeline.exec()) ?? [];
      ids.forEach((id, i) => {
        const [finishedOn, failedReason, returnvalue, data] = (replies[2 * i]?.[1] ?? []) as (string | null)[];
        const delayed = replies[2 * i + 1]?.[1] !== null;
        const node = `${step.id}[${id.slice(id.lastIndexOf(':') + 1)}]`;
        if (data === null || data === undefined) counts.pending++;
        else if (finishedOn !== null && returnvalue !== null && returnvalue !== undefined) {
          const result = parse<NodeJobResult>(returnvalue);
          if (result?.outcome === 'done') {
            counts.done++;
            if (result.cached) counts.cached++;
            else counts.cost += result.result.cost ?? 0;
          } else if (result?.outcome === 'failed' || result?.outcome === 'unsaved' || result?.outcome === 'timed-out') counts.failed++;
          else if (result?.outcome === 'skipped') counts.skipped++;
          else if (result?.outcome === 'unknown') {
            counts.unknown++;
            unknowns.push({ node, reason: result.reason });
          } else counts.pending++;
        } else if (finishedOn !== null && failedReason !== null) {
          const job = parse<NodeJobData>(data);
          if (job?.intent !== undefined && job.requestId === undefined) {
            counts.unknown++;
            unknowns.push({ node, reason: `its worker failed after the submission was sent: ${failedReason}` });
          } else counts.failed++;
        } else if (delayed) counts.deferred++;
        else if (parse<NodeJobData>(data)?.requestId !== undefined) counts.running++;
        else counts.waiting++;
      });
    }
    steps.push({ step: step.id, pool: step.pool, items: step.items, ...counts, cost: roundUsd(counts.cost) });
  }
  return { run, steps, unknowns, workers: await readWorkerPresence(redis, scope, Date.now()), rates: await readRates(redis, scope) };
}

async function readRates(redis: Redis, scope: string): Promise<QueueRunStatusReport['rates']> {
  const prefix = `${accountPrefix(scope)}:bucket:`;
  const rates: { bucket: string; limit: number; window_seconds: number; daily_remaining: number | null }[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200);
    cursor = next;
    for (const key of keys) {
      const state = parse<{ bucket: { state: string; limit: number; windowMs: number; daily: { remaining: number } | null } }>((await redis.hget(key, 's')) ?? '');
      if (state?.bucket.state !== 'known') continue;
      rates.push({ bucket: key.slice(prefix.length), limit: state.bucket.limit, window_seconds: state.bucket.windowMs / 1000, daily_remaining: state.bucket.daily?.remaining ?? null });
    }
  } while (cursor !== '0');
  return rates.sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
}

function parse<T>(text: string | null | undefined): T | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
