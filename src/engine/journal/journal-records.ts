/**
 * The records of a run journal (`<stateDir>/runs/<runId>/journal.jsonl`), one JSON object per
 * line. Every record carries `v` (format version), `t` (type) and `ts` (ms on the run's clock).
 * `node` is the engine's stable id of a job-graph node within the run (step and item key).
 */
import { DeflowError, type ErrorCode } from '../../common/index.js';
import type { RunStatus } from '../contracts/events.js';

/** The journal format this code writes and reads. */
export const JOURNAL_VERSION = 1;

/** An error as the journal keeps it: a stable code, a one-line message, optional job details. */
export interface JournalError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly [extra: string]: unknown;
}

/** Where a finished job's result lives. At most the fields that apply are set. */
export interface JournalResult {
  readonly url?: string;
  readonly text?: string;
  readonly json?: unknown;
  /** sha256 of the downloaded bytes in the blob store. */
  readonly blob?: string;
  /** A file the result was written to. */
  readonly path?: string;
}

/** The run header, first record of every journal. */
export interface RunEntry {
  readonly t: 'run';
  readonly run_id: string;
  readonly workflow: string;
  readonly workflow_digest: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly started_at: number;
}

/** Durable before the submission POST: without a later `submitted`, the outcome is unknown. */
export interface IntentEntry {
  readonly t: 'intent';
  readonly node: string;
  readonly step: string;
  readonly index: number;
  readonly attempt: number;
  readonly params_digest: string;
  readonly cache_key: string | null;
}

/** Durable as soon as the service answers with a request id. */
export interface SubmittedEntry {
  readonly t: 'submitted';
  readonly node: string;
  readonly attempt: number;
  readonly request_id: string;
  /** The submission's answer was lost; a verified webhook delivery naming the item told the request id. */
  readonly adopted?: true;
}

export interface StatusEntry {
  readonly t: 'status';
  readonly node: string;
  readonly status: string;
  readonly progress: number | null;
}

export interface DoneEntry {
  readonly t: 'done';
  readonly node: string;
  readonly request_id: string | null;
  /** USD actually charged, when known. */
  readonly cost: number | null;
  readonly result: JournalResult;
  /** Files written for this node (relative to the workflow folder). */
  readonly outputs: readonly string[];
}

/**
 * Durable once the service says the job is done, before its result is fetched: the job is
 * paid for. Whatever happens to the download or the save, the node is never submitted again.
 */
export interface PaidEntry {
  readonly t: 'paid';
  readonly node: string;
  readonly request_id: string;
  readonly result_url: string | null;
  /** USD charged, when known. */
  readonly cost: number | null;
}

/** Paid, not saved: the result could not be fetched or written. A re-run fetches it again. */
export interface UnsavedEntry {
  readonly t: 'unsaved';
  readonly node: string;
  readonly request_id: string;
  readonly error: JournalError;
}

/**
 * The job ran past its step's `timeout` (and retries): deflow stopped waiting, the job still
 * runs at the service and is charged when it ends. A later run polls `request_id` first and
 * adopts its result; only `--resubmit-timed-out` submits the node again.
 */
export interface TimedOutEntry {
  readonly t: 'timed-out';
  readonly node: string;
  readonly request_id: string;
  readonly error: JournalError;
}

export interface FailedEntry {
  readonly t: 'failed';
  readonly node: string;
  readonly error: JournalError;
  readonly retryable: boolean;
}

export interface SkippedEntry {
  readonly t: 'skipped';
  readonly node: string;
  readonly reason: string;
}

/** The node's result came from the result cache: nothing was paid. */
export interface CachedEntry {
  readonly t: 'cached';
  readonly node: string;
  readonly cache_key: string;
}

/**
 * Not submitted: the daily window of `pool` is used up until `reset_at` (clock ms, null when
 * the service did not say). A later run submits the node, and sends nothing to `pool` before
 * `reset_at`.
 */
export interface DeferredEntry {
  readonly t: 'deferred';
  readonly node: string;
  readonly pool: string;
  readonly reset_at: number | null;
}

export interface UnknownEntry {
  readonly t: 'unknown';
  readonly node: string;
  readonly reason: string;
}

/** The run's last record: a run with an `end` record is finished. */
export interface EndEntry {
  readonly t: 'end';
  readonly status: RunStatus;
}

/** What a caller appends: the journal stamps `v` and `ts`. */
export type JournalEntry =
  | RunEntry
  | IntentEntry
  | SubmittedEntry
  | StatusEntry
  | DoneEntry
  | PaidEntry
  | UnsavedEntry
  | TimedOutEntry
  | FailedEntry
  | SkippedEntry
  | CachedEntry
  | DeferredEntry
  | UnknownEntry
  | EndEntry;

export type JournalRecordType = JournalEntry['t'];

interface Stamp {
  readonly v: typeof JOURNAL_VERSION;
  readonly ts: number;
}

type Stamped<E> = E extends JournalEntry ? E & Stamp : never;

/** A record as stored: an entry plus its version and timestamp. */
export type JournalRecord = Stamped<JournalEntry>;

/** A record of one type, e.g. `RecordOf<'intent'>`. */
export type RecordOf<T extends JournalRecordType> = Extract<JournalRecord, { t: T }>;

/** Every record type of format version 1. */
export const RECORD_TYPES: ReadonlySet<string> = new Set<JournalRecordType>([
  'run',
  'intent',
  'submitted',
  'status',
  'done',
  'paid',
  'unsaved',
  'timed-out',
  'failed',
  'skipped',
  'cached',
  'deferred',
  'unknown',
  'end',
]);

/** Adds `v` and `ts` to an entry. */
export function stampEntry(entry: JournalEntry, ts: number): JournalRecord {
  return { v: JOURNAL_VERSION, ts, ...entry };
}

/**
 * Parses one journal line. Returns undefined for text that is not a record at all (a torn or
 * garbled line); throws `E_JOURNAL_VERSION` for a record written by a newer format, which
 * must not be silently skipped. Checks only the envelope: records are trusted past it, since
 * only deflow writes them and per-field checks would dominate replay time.
 */
export function parseJournalLine(line: string, path: string, lineNo: number | null): JournalRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as { v?: unknown; t?: unknown; ts?: unknown };
  if (typeof record.v === 'number' && record.v > JOURNAL_VERSION) {
    const where = lineNo === null ? path : `${path}:${lineNo}`;
    throw new DeflowError(
      'E_JOURNAL_VERSION',
      `${where}: journal record version ${record.v} is newer than this deflow reads (${JOURNAL_VERSION}); upgrade deflow`,
      { details: { path, line: lineNo, version: record.v } },
    );
  }
  if (record.v !== JOURNAL_VERSION || typeof record.t !== 'string' || !RECORD_TYPES.has(record.t)) return undefined;
  if (typeof record.ts !== 'number') return undefined;
  return value as JournalRecord;
}
