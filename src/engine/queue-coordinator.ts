/**
 * `deflow run WORKFLOW --queue URL`: the coordinator. It registers the run in Redis (or finds
 * the unfinished run of the same workflow and resumes it from the queue's state), then runs
 * the engine's own scheduler with a job runner that enqueues nodes as their inputs become
 * ready and waits for workers to finish them. Everything else (quote, budget, events, the
 * report, the outcome) is `runWorkflow`'s.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../common/index.js';
import { newRunId } from './journal/index.js';
import { type RunOutcome, type RunWorkflowOptions, runWorkflowWith } from './run-workflow.js';
import { CompletionWatch, findResumableRun, type QueueRunMeta, QueueRunners, queueName, type RedisTarget, readRun, saveRun, setRunStatus } from './queue/index.js';

/** Jobs of a step enqueued ahead of the workers, unless the workflow bounds the step. */
export const DEFAULT_QUEUE_DEPTH = 5000;

export interface QueueRunOptions extends Omit<RunWorkflowOptions, 'seed' | 'recorder' | 'cache' | 'webhooks' | 'runId' | 'resumed'> {
  readonly target: RedisTarget;
  /** The `traceparent` each job carries to its worker (the coordinator's span of the job), when the run is traced. */
  readonly traceparentOf?: (step: string, index: number) => string | undefined;
  /** Commands (the shared governor's connection will do). */
  readonly redis: Redis;
  /** {@link accountScope} of the account the workers serve. */
  readonly scope: string;
  /** `--run-id`: resume this run, or start one under this name. */
  readonly runId?: string | undefined;
  /** sha256 of the workflow and inputs (`digestWorkflow`). */
  readonly workflowDigest: string;
  /** Input values as given, for the workers to expand the same graph. */
  readonly givenInputs: Readonly<Record<string, unknown>>;
  /** Where relative paths of the inputs resolve. */
  readonly cwd: string;
  /** `--no-cache` passes false. @default true */
  readonly useCache?: boolean;
  /** @default DEFAULT_QUEUE_DEPTH */
  readonly depth?: number;
  /** The run {@link openQueueRun} chose (else it is chosen here). */
  readonly opened?: OpenedQueueRun;
  /** `--resubmit-unknown`: jobs an earlier session left unknown are submitted again (they may be paid twice). @default false */
  readonly resubmitUnknown?: boolean;
  /** `--resubmit-timed-out`: jobs an earlier session left timed out are submitted again instead of polled (they may be paid twice). @default false */
  readonly resubmitTimedOut?: boolean;
  /** Called once the run is registered, before anything is enqueued. */
  readonly onOpened?: (run: { readonly runId: string; readonly resumed: boolean }) => void;
}

export interface QueueOutcome extends RunOutcome {
  readonly resumed: boolean;
}

/** A run registered in the queue, about to be run by {@link runQueued}. */
export interface OpenedQueueRun {
  readonly runId: string;
  /** An earlier session of the run (a coordinator that stopped or died) is picked up. */
  readonly resumed: boolean;
  readonly startedAt: number;
  /** Its real start, kept when its clock is accelerated (see {@link QueueRunMeta.realStartedAt}). */
  readonly realStartedAt?: number;
}

/**
 * Which run a coordinator drives: `--run-id`'s (resumed when registered), else the newest
 * unfinished run of the same workflow and inputs, else a new one.
 */
export async function openQueueRun(redis: Redis, scope: string, options: { readonly runId?: string | undefined; readonly workflowDigest: string; readonly clock: Clock }): Promise<OpenedQueueRun> {
  const known = options.runId !== undefined ? await readRun(redis, scope, options.runId) : await findResumableRun(redis, scope, options.workflowDigest);
  return {
    runId: known?.runId ?? options.runId ?? newRunId(options.clock),
    resumed: known !== undefined,
    startedAt: known?.startedAt ?? options.clock.now(),
    ...(known?.realStartedAt === undefined ? {} : { realStartedAt: known.realStartedAt }),
  };
}

export async function runQueued(options: QueueRunOptions): Promise<QueueOutcome> {
  const { graph, redis, scope } = options;
  const clock = options.clock ?? options.client.clock;
  const pools = [...new Set(graph.steps.map((step) => step.task.pool))];
  const opened = options.opened ?? (await openQueueRun(redis, scope, { runId: options.runId, workflowDigest: options.workflowDigest, clock }));
  const { runId, resumed, startedAt } = opened;
  // On an accelerated clock its dates run ahead of real time: the real ones are kept beside them.
  const accelerated = clock.realPerVirtual < 1;
  const meta: QueueRunMeta = {
    runId,
    workflow: graph.workflow.file,
    digest: options.workflowDigest,
    inputs: options.givenInputs,
    cwd: options.cwd,
    outputDir: graph.outputDir,
    stateDir: options.stateDir,
    useCache: options.useCache ?? true,
    startedAt,
    status: 'running',
    finishedAt: null,
    pools,
    steps: graph.steps.map((step) => ({ id: step.id, items: step.itemCount, pool: step.task.pool })),
    ...(accelerated ? { realStartedAt: opened.realStartedAt ?? Date.now(), realFinishedAt: null } : {}),
  };
  await saveRun(redis, scope, meta);
  options.onOpened?.({ runId, resumed });
  const queues = new Map(graph.steps.map((step) => [step.id, queueName(scope, step.task.pool)]));
  const progress: { forward?: QueueRunners['onProgress'] } = {};
  const watch = new CompletionWatch(options.target, redis, `${runId}:`, (jobId, data) => progress.forward?.(jobId, data));
  const runners = new QueueRunners({
    runId,
    watch,
    queueOf: (stepId) => queues.get(stepId)!,
    resumed,
    resubmitUnknown: options.resubmitUnknown === true,
    resubmitTimedOut: options.resubmitTimedOut === true,
    ...(options.traceparentOf === undefined ? {} : { traceparentOf: options.traceparentOf }),
  });
  progress.forward = runners.onProgress;
  const governor = options.client.governor;
  const onDaily = (event: { pool: string; resetAt: number }): void => runners.defer(event.pool, event.resetAt);
  governor?.on('dailyExhausted', onDaily);
  let status: QueueRunMeta['status'] = 'running';
  try {
    for (const name of new Set(queues.values())) await watch.watch(name);
    const { target: _target, redis: _redis, scope: _scope, workflowDigest: _digest, givenInputs: _inputs, cwd: _cwd, useCache: _useCache, depth, onOpened: _onOpened, resubmitUnknown: _resubmit, resubmitTimedOut: _resubmitTimedOut, runId: _runId, opened: _opened, ...rest } = options;
    const outcome = await runWorkflowWith({ ...rest, runId, resumed, runners, stepLimit: depth ?? DEFAULT_QUEUE_DEPTH });
    status = outcome.status;
    return { ...outcome, resumed };
  } finally {
    governor?.off('dailyExhausted', onDaily);
    await watch.close();
    const ended = status !== 'running';
    await setRunStatus(redis, scope, runId, status, ended ? clock.now() : null, accelerated ? (ended ? Date.now() : null) : undefined).catch(() => {});
  }
}
