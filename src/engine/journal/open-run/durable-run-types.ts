/**
 * What opening a durable run takes and what it gives (`../durable-run.ts` opens one; the files
 * of this folder choose, create, resume and close it).
 */
import type { Clock } from '../../../common/index.js';
import type { JobGraph } from '../../../workflow/index.js';
import type { EarlierInvocation } from '../../contracts/events.js';
import type { Journal, JournalOptions } from '../journal.js';
import type { JournalRecorder } from '../journal-recorder.js';
import type { ResumePlan, ResumeSeed, UnknownNode } from '../resume-plan.js';
import type { RunMetaStatus, RunOptionsRecord, runPaths } from '../state-dir.js';

export interface OpenDurableRunOptions {
  readonly stateDir: string;
  readonly graph: JobGraph;
  readonly clock: Clock;
  /** `--run-id`. */
  readonly runId?: string | undefined;
  /** `--resubmit-unknown`. @default false */
  readonly resubmitUnknown?: boolean;
  /** `--resubmit-timed-out`: submit items whose job timed out again instead of polling it. @default false */
  readonly resubmitTimedOut?: boolean;
  /**
   * Always start a new run, carrying nothing over (`--emulator`: the in-process emulator of an
   * earlier session, and its jobs, are gone). @default false
   */
  readonly fresh?: boolean;
  /** @default `digestWorkflow` of the graph (workflow-digest.ts) */
  readonly workflowDigest?: string;
  /** The options that shaped this session, journalled in `run.json` (a plain resume uses them). */
  readonly runOptions?: RunOptionsRecord;
  /**
   * `--wait-lock`: how long (ms, or Infinity) to wait when another session holds the state
   * folder, before giving up with `E_STATE_LOCKED`. @default 0 (refused at once)
   */
  readonly waitLockMs?: number;
  /** Called once when the wait for the state folder begins (what to tell the user). */
  readonly onLockWait?: (message: string) => void;
  /** Resolves on SIGINT: a wait for the state folder ends with `E_INTERRUPTED`. */
  readonly interrupted?: Promise<void>;
}

/**
 * Seams for tests, not part of the public API (src/index.ts does not export this type): the
 * journal's hooks (a failure injected after a record is durable, a sync counter).
 */
export interface OpenDurableRunInternals extends OpenDurableRunOptions {
  readonly journalHooks?: Pick<JournalOptions, 'onAfterSync' | 'datasync'>;
}

export interface DurableRun {
  readonly runId: string;
  /** An earlier session of this run is being continued. */
  readonly resumed: boolean;
  readonly paths: ReturnType<typeof runPaths>;
  readonly journal: Journal;
  readonly recorder: JournalRecorder;
  /** Node states for the engine (resume, or carried-over unknowns). */
  readonly seeds: readonly ResumeSeed[];
  /** What resume found (null for a new run). */
  readonly plan: ResumePlan | null;
  /** Unknown items reported (or resubmitted with `--resubmit-unknown`). */
  readonly unknowns: readonly UnknownNode[];
  /** Things the user should know (a torn tail cut, a changed workflow, carried unknowns). */
  readonly notices: readonly string[];
  /** Earlier sessions of this run and what each spent (empty for a new run). */
  readonly earlier: readonly EarlierInvocation[];
  /** Waits for pending records, closes the journal and writes the run's final status. */
  close(status: RunMetaStatus): Promise<void>;
}

/** A durable run before its `close` is attached (close-run.ts). */
export type DurableParts = Omit<DurableRun, 'close'>;
