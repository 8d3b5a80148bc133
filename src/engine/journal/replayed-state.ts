/** What replaying a journal yields (journal-replay.ts): each node's phase and state, and the run's. */
import type { JournalRecord, RecordOf } from './journal-records.js';

/**
 * Where a node stands after replay. `unknown`: submitted or not, nobody can tell. `paid`: the
 * job is done and paid for, its result not (yet) saved; never submitted again. `timed-out`:
 * the job ran past its step's timeout and may still finish (and be charged): polled again,
 * never submitted again unless asked.
 */
export type NodePhase = 'unknown' | 'submitted' | 'paid' | 'done' | 'failed' | 'skipped' | 'cached' | 'deferred' | 'timed-out';

export interface NodeState {
  readonly node: string;
  readonly phase: NodePhase;
  /** From the node's last intent (null when it never had one, e.g. skipped or cached). */
  readonly step: string | null;
  readonly index: number | null;
  /** The last attempt journalled (0 before any intent). */
  readonly attempt: number;
  /** The job of the last attempt, once known. */
  readonly requestId: string | null;
  /** When that job's `submitted` record was written (clock ms), once known. */
  readonly submittedAt: number | null;
  readonly cacheKey: string | null;
  /** Last polled status and progress while `submitted`. */
  readonly status: string | null;
  readonly progress: number | null;
  /** Why a node is unknown or skipped, or why a paid one is not saved. */
  readonly reason: string | null;
  /** The `paid` record of a node whose job was paid for, its result not saved yet (null before, and once done: the `done` record holds the cost). */
  readonly paid: RecordOf<'paid'> | null;
  /** Paid, and its result can no longer be fetched (reported, never fetched or paid again). */
  readonly lost: boolean;
  /** Its job was adopted: the submission's answer was lost, a webhook delivery naming the item told its request id. */
  readonly adopted: boolean;
  /** The record that set the phase (the `done` record holds the result). */
  readonly last: JournalRecord;
}

export interface RunState {
  /** The first `run` record. */
  readonly run: RecordOf<'run'> | null;
  /** The last `end` record, unless records follow it (the run was resumed). */
  readonly end: RecordOf<'end'> | null;
  /** Nodes in the order they first appear. */
  readonly nodes: ReadonlyMap<string, NodeState>;
}
