/** What the jobs of one run share (job-runner.ts runs each node with it), and how a node ends up. */
import type { DeapiClient } from '../../client/index.js';
import type { Clock } from '../../common/index.js';
import type { GraphStep, JobGraph } from '../../workflow/index.js';
import type { BlobStore, CacheLookup } from '../cache/index.js';
import type { DurationReader } from '../quote/index.js';
import type { JobWakeups } from '../webhooks/index.js';
import type { RecordedNode } from '../contracts/state-recorder.js';
import type { BudgetGuard } from './budget/budget-guard.js';
import type { RunPricer } from './budget/run-pricer.js';
import type { DailyDeferrals } from './daily-deferrals.js';
import type { ScopeBuilder } from './node-scope.js';
import type { PollEstimator } from './poll/poll-estimator.js';
import type { ResultStore } from './result-store.js';
import type { RunControl } from './run-control.js';
import type { RunState } from './run-state.js';
import type { SubmitGate } from './submit-gate.js';
import type { SubmitWindow } from './submit-window.js';

/** Everything the jobs of one run share. */
export interface JobContext {
  readonly graph: JobGraph;
  readonly client: DeapiClient;
  /** The client's governor when it can run the intent hook; otherwise the intent is recorded just before the call. */
  readonly gate: SubmitGate | null;
  readonly clock: Clock;
  readonly state: RunState;
  readonly estimator: PollEstimator;
  readonly budget: BudgetGuard;
  /** What to hold per node before submitting (the quote's prices, re-priced as inputs appear). */
  readonly pricer: RunPricer;
  readonly blobs: BlobStore;
  readonly cache: CacheLookup;
  readonly results: ResultStore;
  /** Builds what a node's expressions see. */
  readonly scope: ScopeBuilder;
  readonly control: RunControl;
  /** Whether results of a step are read downstream or saved (else they are not fetched). */
  readonly needsContent: (step: GraphStep) => boolean;
  /** Poll estimator key of each step's latest job, for the concurrency controller. */
  readonly stepKeys: Map<string, string>;
  /** Bounds the submissions between their intent and their answer. */
  readonly window: SubmitWindow;
  /** `--webhook-url`: fields added to submissions, and the waits a delivery cuts short. */
  readonly webhooks: RunWebhooks | null;
  /**
   * Pools whose daily window is used up: their nodes are deferred (or wait, `--wait-daily`)
   * while the rest of the run goes on. Without it (queue workers) a daily limit stops the run.
   */
  readonly daily?: DailyDeferrals;
  /**
   * Reads media lengths, so a job's polls are placed from its input's size (input-measure.ts).
   * Without it every job of a task and model is estimated alike.
   */
  readonly durations?: DurationReader;
}

/** Webhooks of a run (webhook-hints.ts). */
export interface RunWebhooks {
  readonly fields: Readonly<Record<string, string>>;
  readonly wakeups: JobWakeups;
  /** The fields of one submission, whose URL names the item (else `fields`). */
  readonly fieldsFor?: (node: RecordedNode, attempt: number) => Readonly<Record<string, string>>;
  /**
   * A submission whose answer was lost: the job a verified delivery naming the item reports on,
   * waited for up to the run's adoption wait; null when none came (or the run stopped).
   */
  readonly adopt?: (node: RecordedNode, from: AdoptFrom, signal: AbortSignal) => Promise<{ readonly attempt: number; readonly requestId: string } | null>;
  /** The submission's answer named `requestId` (its deliveries adopt nothing). */
  readonly answered?: (requestId: string) => void;
}

/**
 * Which submission of an item a delivery must name to be adopted: `attempt` of this run, or
 * (an item carried over as unknown from run `run`) any attempt of that run.
 */
export type AdoptFrom = { readonly attempt: number; readonly run?: undefined } | { readonly attempt?: undefined; readonly run: string };

/**
 * How a node ended up: finished one way or another, `unstarted` (back to waiting: the run
 * stopped before it was submitted), `abandoned` (submitted, still running when the run
 * gave up polling), or `timed-out` (its job ran past the step's timeout and retries; it still
 * runs at the service and a later run adopts it).
 */
export type NodeOutcome = 'done' | 'failed' | 'skipped' | 'unknown' | 'unstarted' | 'abandoned' | 'deferred' | 'timed-out';
