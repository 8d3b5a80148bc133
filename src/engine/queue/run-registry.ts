/**
 * Runs of the queue, kept in Redis (the queue's own state, not a local journal): what a
 * worker needs to rebuild a run's job graph (the workflow file and inputs, on the shared
 * paths), where outputs and the state folder are, and the run's status. A coordinator
 * started again for the same workflow finds its unfinished run here and resumes it.
 */
import type { Redis } from 'ioredis';
import type { RunStatus } from '../contracts/events.js';
import { accountKeys } from './queue-names.js';

export type QueueRunStatus = 'running' | RunStatus;

/** A run as the registry keeps it. */
export interface QueueRunMeta {
  readonly runId: string;
  /** Absolute path of the workflow file (every worker must see it at this path). */
  readonly workflow: string;
  /** sha256 of the workflow's bytes and resolved inputs. */
  readonly digest: string;
  /** Input values as given (`--input`, `--inputs`). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The coordinator's working folder (relative input paths resolve against it). */
  readonly cwd: string;
  readonly outputDir: string;
  readonly stateDir: string;
  readonly useCache: boolean;
  readonly startedAt: number;
  readonly status: QueueRunStatus;
  readonly finishedAt: number | null;
  /** Pools whose queues the run uses. */
  readonly pools: readonly string[];
  /** The run's steps, in order: id, items, pool. */
  readonly steps: readonly { readonly id: string; readonly items: number; readonly pool: string }[];
  /**
   * On an accelerated clock (the emulator's time scale) the run's dates run ahead of real time:
   * the real start (the first session's) and end are kept beside them, so that `deflow status
   * --queue` gives real dates without the coordinator's state folder.
   */
  readonly realStartedAt?: number;
  readonly realFinishedAt?: number | null;
}

/** Records a new run (or overwrites the meta data of a run started again). */
export async function saveRun(redis: Redis, scope: string, meta: QueueRunMeta): Promise<void> {
  const keys = accountKeys(scope);
  await redis
    .multi()
    .hset(keys.run(meta.runId), toHash(meta))
    .zadd(keys.runs, meta.startedAt, meta.runId)
    .sadd(keys.pools, ...meta.pools)
    .exec();
}

export async function readRun(redis: Redis, scope: string, runId: string): Promise<QueueRunMeta | undefined> {
  const hash = await redis.hgetall(accountKeys(scope).run(runId));
  return hash.run_id === undefined ? undefined : fromHash(hash);
}

/** Runs newest first (at most `limit`). */
export async function listQueueRuns(redis: Redis, scope: string, limit = 50): Promise<QueueRunMeta[]> {
  const ids = await redis.zrevrange(accountKeys(scope).runs, 0, limit - 1);
  const runs = await Promise.all(ids.map((id) => readRun(redis, scope, id)));
  return runs.filter((run): run is QueueRunMeta => run !== undefined);
}

/** The newest run of this workflow (same digest) that did not finish with everything done. */
export async function findResumableRun(redis: Redis, scope: string, digest: string): Promise<QueueRunMeta | undefined> {
  const latest = (await listQueueRuns(redis, scope)).find((run) => run.digest === digest);
  return latest !== undefined && latest.status !== 'done' ? latest : undefined;
}

export async function setRunStatus(redis: Redis, scope: string, runId: string, status: QueueRunStatus, finishedAt: number | null, realFinishedAt?: number | null): Promise<void> {
  await redis.hset(accountKeys(scope).run(runId), {
    status,
    finished_at: finishedAt === null ? '' : String(finishedAt),
    ...(realFinishedAt === undefined ? {} : { real_finished_at: realFinishedAt === null ? '' : String(realFinishedAt) }),
  });
}

/** Pools workers of this account should serve. */
export async function activePools(redis: Redis, scope: string): Promise<string[]> {
  return redis.smembers(accountKeys(scope).pools);
}

function toHash(meta: QueueRunMeta): Record<string, string> {
  return {
    run_id: meta.runId,
    workflow: meta.workflow,
    digest: meta.digest,
    inputs: JSON.stringify(meta.inputs),
    cwd: meta.cwd,
    output_dir: meta.outputDir,
    state_dir: meta.stateDir,
    use_cache: meta.useCache ? '1' : '0',
    started_at: String(meta.startedAt),
    status: meta.status,
    finished_at: meta.finishedAt === null ? '' : String(meta.finishedAt),
    pools: JSON.stringify(meta.pools),
    steps: JSON.stringify(meta.steps),
    ...(meta.realStartedAt === undefined
      ? {}
      : { real_started_at: String(meta.realStartedAt), real_finished_at: meta.realFinishedAt === undefined || meta.realFinishedAt === null ? '' : String(meta.realFinishedAt) }),
  };
}

function fromHash(hash: Record<string, string>): QueueRunMeta {
  return {
    runId: hash.run_id!,
    workflow: hash.workflow ?? '',
    digest: hash.digest ?? '',
    inputs: parse(hash.inputs, {}) as Record<string, unknown>,
    cwd: hash.cwd ?? '',
    outputDir: hash.output_dir ?? '',
    stateDir: hash.state_dir ?? '',
    useCache: hash.use_cache === '1',
    startedAt: Number(hash.started_at ?? 0),
    status: (hash.status ?? 'running') as QueueRunStatus,
    finishedAt: hash.finished_at ? Number(hash.finished_at) : null,
    pools: parse(hash.pools, []) as string[],
    steps: parse(hash.steps, []) as QueueRunMeta['steps'],
    ...(hash.real_started_at ? { realStartedAt: Number(hash.real_started_at), realFinishedAt: hash.real_finished_at ? Number(hash.real_finished_at) : null } : {}),
  };
}

function parse(text: string | undefined, fallback: unknown): unknown {
  if (text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
