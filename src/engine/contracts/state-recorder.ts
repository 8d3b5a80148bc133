/**
 * The engine's durable-state seam. Every node transition goes through the run state
 * (run-state.ts), which calls these hooks in order and awaits them; a journal (docs/running.md#the-journal)
 * implements them, the default records nothing. A hook that rejects stops the run: a state
 * change that cannot be recorded must not be acted on.
 */
import type { EventError, NodeRef, RunStatus } from './events.js';
import type { NodeResult } from './node-result.js';

/** A node as the recorder sees it: the events' reference plus its index in the job graph. */
export interface RecordedNode extends NodeRef {
  /** Global node index (`graph.nodeIndex(step, index)`), stable within one expansion of the workflow. */
  readonly id: number;
}

export interface StateRecorder {
  /**
   * About to send the submission POST (the rate governor already granted it). Awaited: the
   * POST goes out only after this resolves, so a crash afterwards leaves an intent without
   * a request id, which resume reports as `unknown` instead of paying twice.
   */
  intent(node: RecordedNode, attempt: number, paramsDigest: string, cacheKey: string | null): Promise<void>;
  /**
   * The request of a recorded intent was refused before any job was created (a daily limit,
   * a refused key or balance): the node waits for the next run, and a resume may submit it.
   */
  withdrawn(node: RecordedNode, attempt: number, reason: string): Promise<void>;
  /**
   * The service accepted the job (awaited right after the answer, before polling). `adopted`:
   * the answer was lost and a webhook delivery naming the item told its request id.
   */
  submitted(node: RecordedNode, attempt: number, requestId: string, adopted?: boolean): Promise<void>;
  /** A poll saw a new status (not awaited by the poller; failures surface at `finish`). */
  progress(node: RecordedNode, status: string, progress: number | null): Promise<void>;
  /**
   * The service says the job is done: it is paid for. Awaited before its result is fetched,
   * so that a failed download or save (or a crash) never leads to a second submission.
   */
  paid(node: RecordedNode, requestId: string, resultUrl: string | null, cost: number | null): Promise<void>;
  /** Paid, not saved: the result of a paid job could not be fetched or written. */
  unsaved(node: RecordedNode, requestId: string, error: EventError): Promise<void>;
  /** The node is done: its result is in place and its outputs are written. */
  done(node: RecordedNode, done: RecordedDone): Promise<void>;
  /** The job failed and will be submitted again (attempt is the next attempt's number). */
  retrying(node: RecordedNode, attempt: number, error: EventError): Promise<void>;
  failed(node: RecordedNode, error: EventError, retryable: boolean): Promise<void>;
  skipped(node: RecordedNode, reason: string): Promise<void>;
  /**
   * Not submitted: `pool`'s daily window is used up until `resetAt` (clock ms; null when the
   * service did not say). A later run submits it, and before `resetAt` sends nothing to `pool`.
   */
  deferred(node: RecordedNode, pool: string, resetAt: number | null): Promise<void>;
  /** The submission's outcome cannot be known (it may have created a job). */
  unknown(node: RecordedNode, reason: string): Promise<void>;
  /**
   * The job at `requestId` ran past its step's `timeout` (and its retries): deflow stopped
   * waiting for it, but it still runs at the service and is charged when it ends. A later run
   * polls it again and adopts its result; it is never submitted again unless asked.
   */
  timedOut(node: RecordedNode, requestId: string, error: EventError): Promise<void>;
  /** The run ended (after its last node transition). */
  finished(status: RunStatus): Promise<void>;
}

export interface RecordedDone {
  readonly requestId: string | null;
  /** USD charged (0 when cached). */
  readonly cost: number | null;
  readonly result: NodeResult;
  /** Files written, relative to the workflow folder. */
  readonly outputs: readonly string[];
  /** The job's cache key (null when the job is not cacheable). */
  readonly cacheKey: string | null;
  /** Served from the result cache (nothing was submitted or paid). */
  readonly cached: boolean;
}

/** Records nothing (runs without a journal). */
export const NO_RECORDER: StateRecorder = {
  intent: async () => {},
  withdrawn: async () => {},
  submitted: async () => {},
  progress: async () => {},
  paid: async () => {},
  unsaved: async () => {},
  done: async () => {},
  retrying: async () => {},
  failed: async () => {},
  skipped: async () => {},
  deferred: async () => {},
  unknown: async () => {},
  timedOut: async () => {},
  finished: async () => {},
};
