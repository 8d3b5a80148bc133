/**
 * The typed events the engine emits while quoting and running a workflow. The report layer
 * (src/report) renders them; the engine never formats output itself. Every event carries
 * `ts`, milliseconds since the epoch on the run's clock.
 */

import type { ErrorCode, RunStatus } from '../../common/index.js';
import type { JobErrorCode } from '../../service/index.js';

/** A node of the job graph as events name it: step id, item index, and the item's stable key. */
export interface NodeRef {
  readonly step: string;
  readonly index: number;
  /** Stable identity of the item across runs (relative path, or a digest of the item value). */
  readonly key: string;
}

/** An error as reports show it: a stable code and a one-line message, never a secret. */
export interface EventError {
  readonly code: ErrorCode;
  readonly message: string;
  /** Job errors: the service's `error_code` / `error_reason` / `retryable`. */
  readonly jobErrorCode?: JobErrorCode;
  readonly reason?: string;
  readonly retryable?: boolean;
}

/** How a run ended; common's exit-codes.ts gives each its exit code. */
export type { RunStatus };

/**
 * Why an item was skipped: its `if` is false (`condition`), its inputs failed the load-time
 * checks and `--keep-going` left it out (`invalid`), or something it reads did not succeed
 * (`upstream`). Only `condition` is a skip that a successful run may have.
 */
export type SkipKind = 'condition' | 'invalid' | 'upstream';

/** A rate-limit pool whose daily window is used up, and the items that wait for it. */
export interface DeferredPool {
  readonly pool: string;
  /** Clock ms when the daily window refills (`X-RateLimit-Daily-Reset`); null when unknown. */
  readonly resetAt: number | null;
  /** Items deferred to it in this session. */
  readonly items: number;
}

/** An earlier session (`deflow run` invocation) of a resumed run, and what it spent. */
export interface EarlierInvocation {
  /** Clock ms. */
  readonly startedAt: number;
  /** Clock ms; null when it was killed before it could say. */
  readonly finishedAt: number | null;
  /** How it ended (`crashed` when it never said). */
  readonly status: string;
  /** USD charged for jobs that finished during it. */
  readonly spent: number;
}

/** How the budget went: the gate before the run, and the submission the cap stopped during it. */
export interface BudgetOutcome {
  readonly maxCost: number | null;
  readonly allowUnpriced: boolean;
  /** The gate's verdict before anything was submitted (null when nothing was quoted). */
  readonly verdict: string | null;
  readonly reason: string | null;
  /** The first submission the cap refused during the run: what it would have held, how, and spent/reserved then. */
  readonly refused: {
    readonly node: NodeRef;
    readonly amount: number;
    readonly how: string;
    readonly spent: number;
    readonly reserved: number;
  } | null;
}

export type RunEvent =
  | {
      readonly type: 'run-started';
      readonly ts: number;
      readonly runId: string;
      readonly workflow: string;
      readonly workflowName: string;
      readonly resumed: boolean;
      readonly steps: readonly { readonly id: string; readonly task: string; readonly items: number }[];
      /** Earlier sessions of this run, oldest first (empty for a new run). */
      readonly earlier?: readonly EarlierInvocation[];
      /** Virtual seconds per real second of the run's clock (the emulator's accelerated clock); absent at 1. */
      readonly timeScale?: number;
      /** Real wall time (epoch ms) when the session started, given with `timeScale` (`ts` is then virtual). */
      readonly realStartedAt?: number;
    }
  | {
      readonly type: 'quoted';
      readonly ts: number;
      /** USD: the exact part, the estimated part's range, the whole total's point and ends, and the items with no price. */
      readonly total: {
        readonly exact: number;
        readonly estimated: { readonly point: number; readonly low: number; readonly high: number };
        readonly point: number;
        readonly low: number;
        readonly high: number;
        readonly unknownItems: number;
      };
      readonly priceRequests: number;
      readonly balance: number | null;
      readonly maxCost: number | null;
      /** The budget gate's verdict (`within`, `over-budget`, `unpriced`, `over-balance`, `unavailable`, `no-budget`) and why. */
      readonly verdict: string;
      readonly reason: string;
    }
  /** Its upstream is done: it waits for a slot and the rate governor (roots wait from `run-started`). */
  | { readonly type: 'item-queued'; readonly ts: number; readonly node: NodeRef }
  | {
      readonly type: 'item-submitted';
      readonly ts: number;
      readonly node: NodeRef;
      readonly requestId: string;
      readonly attempt: number;
      readonly quotedCost: number | null;
      /** The submission's answer was lost; a verified webhook delivery naming the item told its request id. */
      readonly adopted?: true;
    }
  | { readonly type: 'item-progress'; readonly ts: number; readonly node: NodeRef; readonly progress: number; readonly status: string }
  | {
      readonly type: 'item-done';
      readonly ts: number;
      readonly node: NodeRef;
      readonly requestId: string | null;
      /** Actual cost in USD (0 when served from the cache). */
      readonly cost: number;
      readonly quotedCost: number | null;
      readonly cached: boolean;
      /** Done in an earlier session of the run (its cost was charged then). */
      readonly earlier?: boolean;
      /** Done in an earlier session, its job adopted there (its submission's answer was lost; a webhook delivery named the item). */
      readonly adopted?: true;
      readonly outputs: readonly string[];
      readonly startedAt: number;
    }
  /** The job is done at the service: deflow reads or downloads its result now. */
  | { readonly type: 'item-downloading'; readonly ts: number; readonly node: NodeRef; readonly requestId: string }
  /**
   * A retry. `requestId`: the job timed out and the retry polls that same job again (nothing is
   * submitted while it may still finish); otherwise the failed job is submitted again.
   */
  | { readonly type: 'item-retry'; readonly ts: number; readonly node: NodeRef; readonly attempt: number; readonly error: EventError; readonly requestId?: string }
  | {
      readonly type: 'item-failed';
      readonly ts: number;
      readonly node: NodeRef;
      readonly requestId: string | null;
      readonly error: EventError;
      readonly startedAt: number | null;
      /**
       * Paid, not saved: the job is done and paid for (USD `cost`, charged in an earlier
       * session when `earlier`), but its result could not be fetched or written. A re-run
       * fetches it again; it is never submitted again.
       */
      readonly unsaved?: { readonly cost: number; readonly earlier?: boolean };
    }
  | { readonly type: 'item-skipped'; readonly ts: number; readonly node: NodeRef; readonly reason: string; readonly kind?: SkipKind }
  /** Not submitted: its pool's daily window is used up until `resetAt` (a later run submits it, without paying twice for anything done). */
  | { readonly type: 'item-deferred'; readonly ts: number; readonly node: NodeRef; readonly pool: string; readonly resetAt: number | null }
  /**
   * The job ran past its step's `timeout` (and its retries, each of which polled the same job):
   * deflow stopped waiting, the job goes on at the service and is charged when it ends. A later
   * run polls `requestId` first and adopts its result; `--resubmit-timed-out` submits it again.
   */
  | { readonly type: 'item-timed-out'; readonly ts: number; readonly node: NodeRef; readonly requestId: string; readonly error: EventError; readonly startedAt: number | null }
  /** A submission whose outcome cannot be known (intent journalled, no request_id): never resubmitted silently. */
  | { readonly type: 'item-unknown'; readonly ts: number; readonly node: NodeRef; readonly reason: string }
  /** A 429 closed the pool's window for `waitMs`. */
  | { readonly type: 'throttled'; readonly ts: number; readonly pool: string; readonly waitMs: number }
  /** The governor holds the pool's requests until its window refills (no 429: the pacing working). */
  | {
      readonly type: 'rate-wait';
      readonly ts: number;
      readonly pool: string;
      readonly waitMs: number;
      /** The pool's learned rate: `limit` requests per `windowSeconds` (when known). */
      readonly limit?: number;
      readonly windowSeconds?: number;
    }
  /** A pool's daily window is used up: its items are deferred (or, with `wait`, wait for `resetAt`); other pools go on. */
  | { readonly type: 'daily-limit'; readonly ts: number; readonly pool: string; readonly resetAt: number | null; readonly wait?: boolean }
  | { readonly type: 'warning'; readonly ts: number; readonly message: string }
  | {
      readonly type: 'run-finished';
      readonly ts: number;
      readonly runId: string;
      readonly status: RunStatus;
      readonly exitCode: number;
      readonly counts: {
        readonly total: number;
        readonly done: number;
        readonly cached: number;
        readonly failed: number;
        /** Failed items paid for, their result not saved (part of `failed`). */
        readonly unsaved?: number;
        readonly skipped: number;
        readonly unknown: number;
        /** Items whose job ran past its step's timeout, still running at the service (a later run adopts them). */
        readonly timedOut?: number;
        readonly pending: number;
        /** Items left for a later run by a used-up daily limit (counted in `pending`, too). */
        readonly deferred?: number;
        /** Items left out because their inputs failed the load-time checks (`--keep-going`; counted in `skipped`). */
        readonly invalid?: number;
      };
      /** USD actually charged by the jobs of this run, in every session of it. */
      readonly spent: number;
      /** The part of `spent` charged in earlier sessions. */
      readonly spentEarlier?: number;
      /** The quote's point total, or null. */
      readonly quoted: number | null;
      /** The quote's high end, or null. */
      readonly quotedHigh?: number | null;
      /** The budget, when the run had one. */
      readonly budget?: BudgetOutcome | null;
      /** A command that resumes the run, when it can be resumed. */
      readonly resumeCommand: string | null;
      /** Pools whose daily window stopped some items, with when each refills. */
      readonly deferred?: readonly DeferredPool[];
    };

export type RunEventType = RunEvent['type'];

/** Where the engine sends its events. */
export type RunEventSink = (event: RunEvent) => void;
