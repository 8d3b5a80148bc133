/**
 * What a resumed run does with each node its journal knows, decided from the replayed state:
 *
 * - `done` (paid for, or served from the cache): skipped; its result (`result_url`, text,
 *   JSON, blob, saved path) is handed to the steps that read it, and its outputs stay.
 * - `submitted` (a job exists): polled, never submitted again. So is a node made `unknown`
 *   only because its status could not be read: its request id is known.
 * - `unknown` (an intent with no request id: the process died between sending and
 *   journalling): reported, never resubmitted, because the service has no idempotency key
 *   and a second POST may pay twice. `--resubmit-unknown` runs them again, knowingly.
 * - `paid` (the job is done and paid for, its result not saved: a cut download, a full
 *   disk): its job is asked for again and its result fetched; never submitted again. One the
 *   service no longer knows is reported as lost, with its request id.
 * - `timed-out` (the job ran past its step's timeout; it may still finish and be charged):
 *   polled again first, and its result adopted once it is done; never submitted again while
 *   it may still finish. `--resubmit-timed-out` submits it again, knowingly.
 * - `failed`: run again when the failure was retryable (a resumed run is a fresh chance for
 *   transient failures, whatever `retries` says); a non-retryable failure stays failed.
 * - `skipped` (and withdrawn submissions): re-evaluated, as for a node never seen.
 * Nodes the journal does not know (new files in a glob) simply run. Journal nodes no longer
 * in the workflow are ignored.
 */
import type { EventError } from '../contracts/events.js';
import type { JournalNodeIds } from './journal-node-ids.js';
import type { JournalledResult } from './journal-recorder.js';
import type { RunState as ReplayedRun } from './replayed-state.js';
import type { RecordOf } from './journal-records.js';
import type { NodeResult } from '../run/index.js';
import type { SeedNode } from '../contracts/seed-node.js';

/** A node state carried into the resumed run. */
export type ResumeSeed = SeedNode;

/** A node whose submission may or may not have created a job. */
export interface UnknownNode {
  /** Journal name, `<step>/<item key>`. */
  readonly node: string;
  readonly step: string;
  readonly k: number;
  readonly reason: string;
}

/** A node whose job was paid for and whose result is not saved. */
export interface PaidNode {
  /** Journal name, `<step>/<item key>`. */
  readonly node: string;
  readonly step: string;
  readonly k: number;
  readonly requestId: string;
  readonly resultUrl: string | null;
  readonly cost: number | null;
  /** The service no longer knows the job: reported, never fetched or paid again. */
  readonly lost: boolean;
  readonly reason: string | null;
}

/** A node whose job ran past its step's timeout in an earlier session (it may still finish). */
export interface TimedOutNode {
  /** Journal name, `<step>/<item key>`. */
  readonly node: string;
  readonly step: string;
  readonly k: number;
  readonly requestId: string;
  readonly reason: string;
}

export interface ResumeCounts {
  /** Done in an earlier session (cached ones included). */
  done: number;
  cached: number;
  /** Jobs in flight: polled, not resubmitted. */
  submitted: number;
  /** Paid, not saved: fetched again, never resubmitted. */
  paid: number;
  /** Paid, their result lost for good: reported. */
  lost: number;
  /** Reported unknown, not resubmitted. */
  unknown: number;
  /** Unknown, resubmitted because of `--resubmit-unknown`. */
  resubmitted: number;
  /** Timed out in an earlier session: polled again, their result adopted (counted in `submitted` too). */
  timedOut: number;
  /** Timed out, submitted again because of `--resubmit-timed-out`. */
  resubmittedTimedOut: number;
  /** Failed, not retryable: stay failed. */
  failed: number;
  /** Failed with a retryable error: run again. */
  retried: number;
  /** Skipped or withdrawn: re-evaluated. */
  skipped: number;
  /** Deferred by a daily limit: submitted once its pool's window refills. */
  deferred: number;
  /** Journal nodes that are no longer part of the workflow. */
  stale: number;
}

export interface ResumePlan {
  /** In seeding order: done ones (later steps first), failed, unknown, then jobs to poll. */
  readonly seeds: readonly ResumeSeed[];
  /** Cache keys of done and in-flight nodes by graph index: the upstream part of their readers' keys. */
  readonly cacheKeys: ReadonlyMap<number, string>;
  readonly counts: Readonly<ResumeCounts>;
  /** Unknown nodes reported as such (or resubmitted, with `--resubmit-unknown`). */
  readonly unknowns: readonly UnknownNode[];
  /** Paid nodes whose result is not saved (a new run of the workflow carries them over). */
  readonly paid: readonly PaidNode[];
  /** Timed-out nodes (a new run of the workflow carries them over, to poll, unless `--resubmit-timed-out`). */
  readonly timedOut: readonly TimedOutNode[];
  /**
   * Daily windows the journal knows are used up: pool → clock ms when it refills (the latest
   * `reset_at` of its deferred nodes). A resumed run sends nothing to a pool before then.
   */
  readonly dailyWindows: ReadonlyMap<string, number>;
}

export interface PlanResumeOptions {
  readonly ids: JournalNodeIds;
  /** Submit unknown nodes again (they may be paid twice). @default false */
  readonly resubmitUnknown?: boolean;
  /** Submit timed-out nodes again instead of polling their job (they may be paid twice). @default false */
  readonly resubmitTimedOut?: boolean;
}

/** The run a carried unknown item's reason names (`… (run X)`): a delivery naming it there adopts it. */
export function carriedFrom(reason: string): { from?: string } {
  const from = / \(run ([^)]+)\)$/.exec(reason)?.[1];
  return from === undefined ? {} : { from };
}

/** Decides what a resumed run does with each node of a replayed journal. */
export function planResume(run: ReplayedRun, options: PlanResumeOptions): ResumePlan {
  const counts: ResumeCounts = { done: 0, cached: 0, submitted: 0, paid: 0, lost: 0, unknown: 0, resubmitted: 0, timedOut: 0, resubmittedTimedOut: 0, failed: 0, retried: 0, skipped: 0, deferred: 0, stale: 0 };
  const dailyWindows = new Map<string, number>();
  const done: { order: number; seed: ResumeSeed }[] = [];
  const failed: ResumeSeed[] = [];
  const unknown: ResumeSeed[] = [];
  const polled: ResumeSeed[] = [];
  const unknowns: UnknownNode[] = [];
  const paid: PaidNode[] = [];
  const timedOut: TimedOutNode[] = [];
  const cacheKeys = new Map<number, string>();
  for (const node of run.nodes.values()) {
    const found = options.ids.find(node.node);
    if (found === undefined) {
      counts.stale++;
      continue;
    }
    const { step, k, id } = found;
    // Done or in flight, its key is part of its readers' keys.
    const inFlight = node.phase === 'submitted' || node.phase === 'paid' || node.phase === 'timed-out' || (node.phase === 'unknown' && node.requestId !== null);
    if (node.cacheKey !== null && (node.phase === 'done' || inFlight)) cacheKeys.set(id, node.cacheKey);
    switch (node.phase) {
      case 'done': {
        const record = node.last as RecordOf<'done'>;
        done.push({ order: step.order, seed: { state: 'done', step: step.id, k, result: toNodeResult(record, step.task.resultKind), outputs: record.outputs, doneAt: record.ts, ...(node.adopted ? { adopted: true } : {}) } });
        counts.done++;
        if (node.attempt === 0 && node.cacheKey !== null) counts.cached++;
        break;
      }
      case 'paid': {
        const entry: PaidNode = {
          node: node.node,
          step: step.id,
          k,
          requestId: node.requestId!,
          resultUrl: node.paid?.result_url ?? null,
          cost: node.paid?.cost ?? null,
          lost: node.lost,
          reason: node.reason,
        };
        paid.push(entry);
        const seed = paidSeed(entry, node.attempt, node.cacheKey);
        if (seed.state === 'unsaved') {
          failed.push(seed);
          counts.lost++;
        } else {
          polled.push(seed);
          counts.paid++;
        }
        break;
      }
      case 'submitted':
        polled.push({ state: 'submitted', step: step.id, k, requestId: node.requestId!, attempt: Math.max(1, node.attempt), cacheKey: node.cacheKey, submittedAt: node.submittedAt, ...(node.adopted ? { adopted: true } : {}) });
        counts.submitted++;
        break;
      case 'timed-out':
        timedOut.push({ node: node.node, step: step.id, k, requestId: node.requestId!, reason: node.reason ?? 'timed out' });
        if (options.resubmitTimedOut) {
          counts.resubmittedTimedOut++;
          break;
        }
        // Its job may still finish (and be charged): polled first, its result adopted.
        polled.push({ state: 'submitted', step: step.id, k, requestId: node.requestId!, attempt: Math.max(1, node.attempt), cacheKey: node.cacheKey, submittedAt: node.submittedAt, ...(node.adopted ? { adopted: true } : {}) });
        counts.submitted++;
        counts.timedOut++;
        break;
      case 'unknown':
        if (node.requestId !== null) {
          // Its job exists (only its status could not be read): poll it again.
          polled.push({ state: 'submitted', step: step.id, k, requestId: node.requestId, attempt: Math.max(1, node.attempt), cacheKey: node.cacheKey, submittedAt: node.submittedAt, ...(node.adopted ? { adopted: true } : {}) });
          counts.submitted++;
          break;
        }
        unknowns.push({ node: node.node, step: step.id, k, reason: node.reason ?? 'unknown' });
        if (options.resubmitUnknown) counts.resubmitted++;
        else {
          unknown.push({ state: 'unknown', step: step.id, k, reason: node.reason ?? 'unknown', ...(node.attempt > 0 ? { attempt: node.attempt } : carriedFrom(node.reason ?? '')) });
          counts.unknown++;
        }
        break;
      case 'failed': {
        const record = node.last as RecordOf<'failed'>;
        if (record.retryable) counts.retried++;
        else {
          failed.push({ state: 'failed', step: step.id, k, error: toEventError(record) });
          counts.failed++;
        }
        break;
      }
      case 'skipped':
      case 'cached': // a hit whose done record was lost: looked up again
        counts.skipped++;
        break;
      case 'deferred': {
        // Evaluated again; its pool's window is kept so nothing is sent into it before it refills.
        const record = node.last as RecordOf<'deferred'>;
        counts.deferred++;
        if (record.reset_at !== null) dailyWindows.set(record.pool, Math.max(dailyWindows.get(record.pool) ?? 0, record.reset_at));
        break;
      }
    }
  }
  // Later steps first: an upstream result then keeps only the readers that still run.
  done.sort((a, b) => b.order - a.order);
  return { seeds: [...done.map((d) => d.seed), ...failed, ...unknown, ...polled], cacheKeys, counts, unknowns, paid, timedOut, dailyWindows };
}

/** What the engine does with a paid node: fetch its result again, or report it lost. */
export function paidSeed(node: PaidNode, attempt: number, cacheKey: string | null): ResumeSeed {
  if (node.lost) {
    const message = node.reason ?? `job ${node.requestId} was paid for, but its result can no longer be fetched`;
    return { state: 'unsaved', step: node.step, k: node.k, requestId: node.requestId, error: { code: 'E_RESULT_LOST', message: message.replace(/^E_RESULT_LOST: /, '') } };
  }
  return { state: 'submitted', step: node.step, k: node.k, requestId: node.requestId, attempt: Math.max(1, attempt), cacheKey, paid: { cost: node.cost } };
}

/** The result a done record describes, as the engine passes it downstream. */
export function toNodeResult(record: RecordOf<'done'>, kind: NodeResult['kind']): NodeResult {
  const r = record.result as JournalledResult;
  // Assigned one by one, not spread: this runs for every done item of a resume (10,000 of them).
  const result: { -readonly [K in keyof NodeResult]: NodeResult[K] } = { kind, requestId: record.request_id, url: r.url ?? null, cost: record.cost };
  if (r.text !== undefined) result.text = r.text;
  if (r.json !== undefined) result.json = r.json;
  if (r.blob !== undefined) result.blob = r.blob;
  if (r.ext !== undefined) result.ext = r.ext;
  if (r.size !== undefined) result.size = r.size;
  if (r.path !== undefined) result.path = r.path;
  return result;
}

function toEventError(record: RecordOf<'failed'>): EventError {
  const { error } = record;
  return {
    code: error.code,
    message: error.message,
    retryable: record.retryable,
    ...(typeof error['job_error_code'] === 'string' ? { jobErrorCode: error['job_error_code'] } : {}),
    ...(typeof error['reason'] === 'string' ? { reason: error['reason'] } : {}),
  };
}

