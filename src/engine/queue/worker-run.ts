/**
 * A run as a worker holds it: the job graph rebuilt from the workflow file and inputs the
 * coordinator registered (the shared-paths assumption: the worker reads the same files at the
 * same paths), checked to be the same workflow, and what its jobs share in this process (the
 * run state, the blob store and result cache of the run's state folder, the poll estimator,
 * which starts from the state folder's `poll-rates.json` and measures each job's input, as a
 * local run's does).
 */
import { join } from 'node:path';
import type { DeapiClient } from '../../client/index.js';
import { DeflowError } from '../../common/index.js';
import type { Clock } from '../../common/index.js';
import { JobGraph, validateWorkflow } from '../../workflow/index.js';
import { type BlobStore, CacheAdapter, type CacheLookup, createBlobStore, createResultCache, NO_CACHE } from '../cache/index.js';
import type { RunEventSink } from '../contracts/events.js';
import { digestWorkflow, stateLayout } from '../journal/index.js';
import { createDurationReader, type DurationReader } from '../quote/index.js';
import { createScopeBuilder, type JobContext, loadPollMemory, oncePerPath, PollEstimator, RunPricer, RunState, savePollMemory, type ScopeBuilder, SubmitWindow } from '../run/index.js';
import { DispatchRecorder } from './job-recorder.js';
import type { QueueRunMeta } from './run-registry.js';

export interface WorkerRun {
  readonly meta: QueueRunMeta;
  readonly graph: JobGraph;
  readonly state: RunState;
  readonly recorder: DispatchRecorder;
  readonly blobs: BlobStore;
  readonly cache: CacheLookup;
  readonly scope: ScopeBuilder;
  readonly estimator: PollEstimator;
  /** Each input file's media duration, read once: jobs' polls are placed from their input's size. */
  readonly durations: DurationReader;
  readonly window: SubmitWindow;
  readonly stepKeys: Map<string, string>;
  /** No quote in a worker: nothing is priced here (the coordinator keeps the budget). */
  readonly pricer: RunPricer;
}

export interface LoadRunOptions {
  readonly client: DeapiClient;
  readonly clock: Clock;
  readonly onEvent: RunEventSink;
}

/** Rebuilds the run's graph. @throws DeflowError `E_QUEUE_WORKFLOW` when the workflow cannot be read or changed. */
export async function loadWorkerRun(meta: QueueRunMeta, options: LoadRunOptions): Promise<WorkerRun> {
  const { client, clock } = options;
  const layout = stateLayout(meta.stateDir);
  const validation = await validateWorkflow(meta.workflow, {
    inputs: { values: meta.inputs },
    cwd: meta.cwd,
    modelCacheFile: layout.modelsFile,
    fetchModels: () => client.listModels(),
    // The coordinator opened and sniffed every input file; 1,000 of them took a worker 1–2 s of
    // CPU, on the critical path of the run's first submissions.
    checkInputFiles: false,
  });
  if (!validation.ok || validation.graph === undefined) {
    const first = validation.errors[0];
    throw new DeflowError(
      'E_QUEUE_WORKFLOW',
      `run ${meta.runId}: this worker cannot load ${meta.workflow}${first === undefined ? '' : `: ${first.message}`} (workers must see the workflow, its inputs and outputs at the same paths as the coordinator)`,
      { details: { run: meta.runId, workflow: meta.workflow } },
    );
  }
  const loaded = validation.graph;
  const graph = new JobGraph({ workflow: loaded.workflow, inputs: loaded.inputs, outputDir: meta.outputDir, models: loaded.models, steps: loaded.steps, edges: loaded.edges });
  const digest = await digestWorkflow(graph);
  if (digest !== meta.digest) {
    throw new DeflowError(
      'E_QUEUE_WORKFLOW',
      `run ${meta.runId}: ${meta.workflow} (or its inputs) is not the one the coordinator started the run with; workers must see the same workflow file`,
      { details: { run: meta.runId, workflow: meta.workflow } },
    );
  }
  const recorder = new DispatchRecorder();
  // What earlier runs of this state folder learned of job durations places the first polls.
  const estimator = new PollEstimator();
  await loadPollMemory(meta.stateDir, estimator);
  const blobs = createBlobStore(join(meta.stateDir, 'blobs'));
  const cache = meta.useCache ? new CacheAdapter({ graph, cache: createResultCache({ dir: layout.cacheDir, blobs }), blobs, clock }) : NO_CACHE;
  return {
    meta,
    graph,
    state: new RunState(graph, options.onEvent, recorder, clock),
    recorder,
    blobs,
    cache,
    scope: createScopeBuilder(graph, { id: meta.runId, started_at: new Date(meta.startedAt).toISOString() }),
    estimator,
    durations: oncePerPath(createDurationReader()),
    window: new SubmitWindow(),
    stepKeys: new Map(),
    pricer: new RunPricer(graph),
  };
}

/** The context one job of the run runs in (its own stop control and result store). */
export function jobContext(run: WorkerRun, parts: Pick<JobContext, 'client' | 'gate' | 'clock' | 'budget' | 'control' | 'results'>): JobContext {
  return {
    ...parts,
    graph: run.graph,
    state: run.state,
    estimator: run.estimator,
    durations: run.durations,
    pricer: run.pricer,
    blobs: run.blobs,
    cache: run.cache,
    scope: run.scope,
    needsContent: (step) => step.downstream.length > 0 || step.def.save !== undefined,
    stepKeys: run.stepKeys,
    window: run.window,
    webhooks: null,
  };
}

/** Keeps what `run`'s jobs taught this worker of job durations in the run's state folder (poll-memory.ts); never fails. */
export async function saveWorkerRates(run: WorkerRun): Promise<void> {
  await savePollMemory(run.meta.stateDir, run.estimator).catch(() => {});
}
