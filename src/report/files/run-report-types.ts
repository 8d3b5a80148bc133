import type { ErrorCode } from '../../common/index.js';
import type { RunStatus, SkipKind } from '../../engine/index.js';
import type { JobErrorCode } from '../../service/index.js';

/*
 * The shape of `--report run.json` (format_version 1). Keys are snake_case, like every
 * machine-readable output of deflow. Adding fields is not a breaking change; renaming or
 * removing one bumps `format_version`.
 */

/**
 * An item's final state. `done` includes items served from the cache (`cached: true`);
 * `running` means submitted (a `request_id` may be known) but not finished when the report
 * was written; `pending` means never started; `unsaved` means paid, not saved (the job is
 * done and paid for, its result could not be fetched or written: a re-run fetches it again,
 * never pays again), counted among the failed items; `deferred` means not submitted because
 * its pool's daily window was used up (a later run submits it; `skip_reason` says until when);
 * `timed-out` means its job ran past the step's `timeout` (and retries, which polled the same
 * job): the job still runs at the service and is charged when it ends; the next run polls its
 * `request_id` and adopts the result (`--resubmit-timed-out` submits it again instead). Counted
 * among the failed items.
 */
export type ItemStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped' | 'unknown' | 'unsaved' | 'deferred' | 'timed-out';

/** `incomplete`: the report was written without a `run-finished` event (deflow crashed or was killed). */
export type ReportRunStatus = RunStatus | 'running' | 'incomplete';

export interface ReportError {
  readonly code: ErrorCode;
  readonly message: string;
  /** The service's `error_code` for a failed job, as sent. */
  readonly job_error_code?: JobErrorCode;
  readonly reason?: string;
  readonly retryable?: boolean;
}

export interface ReportItem {
  readonly index: number;
  /** `null` for an item the engine never reported on (pending when the run stopped). */
  readonly key: string | null;
  readonly status: ItemStatus;
  readonly cached: boolean;
  readonly request_id: string | null;
  /** USD. */
  readonly cost_quoted: number | null;
  /** USD; 0 for a cached item, `null` when nothing was charged or it is not known. */
  readonly cost_actual: number | null;
  /** ISO 8601. */
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly duration_ms: number | null;
  /** Paths of the files written for this item. */
  readonly outputs: readonly string[];
  /** Failed and unknown items. */
  readonly error: ReportError | null;
  /** Skipped items: why (for instance the upstream item that failed); deferred items: which daily window, until when. */
  readonly skip_reason: string | null;
  /**
   * Skipped items: `condition` (its `if` is false), `invalid` (its inputs failed the load-time
   * checks: left out by `--keep-going`), `upstream` (something it reads did not succeed).
   */
  readonly skip_kind: SkipKind | null;
  /** Submissions made for this item (0 when cached or never submitted). */
  readonly attempts: number;
  /**
   * Its submission's answer was lost and a verified webhook delivery naming the item told its
   * job: adopted (journalled, polled, saved, charged once), never submitted again
   * (docs/running.md, "Adopted items"). In this session or an earlier one of the run.
   */
  readonly adopted: boolean;
}

export interface ReportCounts {
  readonly items: number;
  /** Includes `cached`. `items = done + failed + skipped + unknown + pending`. */
  readonly done: number;
  readonly cached: number;
  /** Includes `unsaved` and `timed_out`. */
  readonly failed: number;
  /**
   * Paid, not saved: the job is done and paid for, its result could not be fetched or written.
   * A re-run fetches it again and never pays again.
   */
  readonly unsaved: number;
  /** Of `failed`: the job ran past its step's timeout; it still runs at the service, and the next run adopts it. */
  readonly timed_out: number;
  readonly skipped: number;
  readonly unknown: number;
  /** Not finished: never started, still running, or deferred. */
  readonly pending: number;
  /** Of `pending`: deferred to a daily window's reset. */
  readonly deferred: number;
  /** Of `skipped`: left out because their inputs failed the load-time checks (`--keep-going`). */
  readonly invalid: number;
  /** Of `skipped`: skipped because something they read did not succeed. */
  readonly blocked: number;
}

export interface ReportTotals extends ReportCounts {
  /** Sum of the quotes of the items that were submitted or finished (USD). */
  readonly cost_quoted: number;
  /** Sum of what finished items actually cost, in every session of the run (USD). */
  readonly cost_actual: number;
}

export interface ReportStepSummary {
  readonly id: string;
  readonly task: string;
  /** Sum of the quotes of its items that were submitted or finished (USD). */
  readonly cost_quoted: number;
  /** What its finished items cost, in every session of the run (USD). */
  readonly cost_actual: number;
  /** Earliest item start and latest item finish (ISO 8601); the step's items run in parallel. */
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly duration_ms: number | null;
  readonly counts: ReportCounts;
}

export interface ReportStep extends ReportStepSummary {
  readonly items: readonly ReportItem[];
}

/** The run's quote before submitting (from the `quoted` event). USD, rounded to micro-dollars. */
export interface ReportQuote {
  /** Exact and derived prices. */
  readonly exact: number;
  /** The point estimate of fitted and estimated prices. */
  readonly estimated: number;
  /** The whole total: exact + estimated. */
  readonly point: number;
  readonly low: number;
  /** The high end the budget gate compares with the cap. */
  readonly high: number;
  /** Items the quote could not price (the sums are lower bounds when any). */
  readonly unknown_items: number;
  readonly price_requests: number;
  readonly balance: number | null;
  readonly max_cost: number | null;
  /** The budget gate's verdict and why. */
  readonly verdict: string;
  readonly verdict_reason: string;
}

/** One session (`deflow run` invocation) that worked on the run, and what it spent. */
export interface ReportInvocation {
  /** 1 for the first session. */
  readonly index: number;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  /** How it ended; `crashed` when it was killed before it could say. */
  readonly status: string;
  /** USD charged for the jobs that finished during it. */
  readonly cost_actual: number;
  /** This report's own session. */
  readonly current: boolean;
}

/** How the budget went. */
export interface ReportBudget {
  readonly max_cost: number | null;
  readonly allow_unpriced: boolean;
  /** The gate's verdict before the run started (null when nothing was quoted). */
  readonly verdict: string | null;
  readonly reason: string | null;
  /** The submission the cap stopped: the item, what it would have held, and spent/reserved then. */
  readonly refused: {
    readonly step: string;
    readonly index: number;
    readonly key: string;
    readonly amount: number;
    readonly how: string;
    readonly spent: number;
    readonly reserved: number;
  } | null;
}

export interface RunReportSummary {
  readonly format_version: 1;
  readonly run_id: string;
  readonly workflow: string;
  readonly workflow_name: string;
  readonly status: ReportRunStatus;
  readonly exit_code: number | null;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  /** On the run's clock: virtual on the emulator's accelerated clock (divide by `time_scale` for real time). */
  readonly duration_ms: number | null;
  /**
   * Virtual seconds per real second of the run's clock: 1 on real time (the service), more on the
   * emulator's accelerated clock. Readers show real durations (`duration_ms / time_scale`) with
   * the virtual ones beside them, labelled. Absent in reports written before it existed (1).
   */
  readonly time_scale?: number;
  readonly resumed: boolean;
  readonly resume_command: string | null;
  readonly quote: ReportQuote | null;
  /** Every session that worked on the run, oldest first, each with what it spent; their sum is `totals.cost_actual`. */
  readonly invocations: readonly ReportInvocation[];
  /** The budget, when the run had one. */
  readonly budget: ReportBudget | null;
  readonly daily_limit: { readonly pool: string; readonly reset_at: string | null } | null;
  /** Every pool whose used-up daily window deferred items of this session, with when it refills. */
  readonly deferred: readonly { readonly pool: string; readonly reset_at: string | null; readonly items: number }[];
  /** The first warnings of the run (capped; see `warnings_dropped`). */
  readonly warnings: readonly string[];
  readonly warnings_dropped: number;
  readonly totals: ReportTotals;
  readonly steps: readonly ReportStepSummary[];
}

export interface RunReport extends Omit<RunReportSummary, 'steps'> {
  readonly steps: readonly ReportStep[];
}

/** What renderers of a finished run (JUnit, Markdown, annotations) read: a summary and items on demand. */
export interface RunReportSource {
  summary(): RunReportSummary;
  /** The items of step `stepId` in index order, only those whose status passes `filter`. */
  items(stepId: string, filter?: (status: ItemStatus) => boolean): Iterable<ReportItem>;
}
