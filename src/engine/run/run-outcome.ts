/**
 * A run's final status (README, "Exit codes"): why it stopped, if it stopped,
 * decides first; then items deferred by a daily limit (exit 5); otherwise any failed or
 * unknown or timed-out item makes it a failure (exit 1); items left out as invalid
 * (`--keep-going`) with everything else done is `left-out` (exit 6).
 */
import { type ExitCode, exitCodeForRun } from '../../common/index.js';
import type { RunStatus } from '../contracts/events.js';
import type { StopReason } from './job-errors.js';
import type { RunCounts } from './run-state.js';

export interface RunVerdict {
  readonly status: RunStatus;
  /** From the status alone (common's exit-codes.ts). */
  readonly exitCode: ExitCode;
}

/**
 * `accepted` is how many jobs the service accepted in this run: a refusal before the first
 * one is exit 3 (nothing was spent); after it, the run simply failed.
 */
export function decideOutcome(reason: StopReason | null, counts: RunCounts, accepted: number): RunVerdict {
  const status = decideStatus(reason, counts, accepted);
  return { status, exitCode: exitCodeForRun(status) };
}

function decideStatus(reason: StopReason | null, counts: RunCounts, accepted: number): RunStatus {
  switch (reason) {
    case 'interrupted':
      return 'interrupted';
    case 'daily-limit':
      return 'daily-limit';
    case 'over-budget':
      return 'over-budget';
    case 'refused':
      return accepted === 0 ? 'refused' : 'failed';
    case 'fatal':
      return 'failed';
    case null:
      // Items waiting for a daily window come first: the run is resumable, and says when.
      if (counts.deferred > 0) return 'daily-limit';
      if (counts.failed + counts.unknown + counts.timedOut > 0) return 'failed';
      // Every item that could run succeeded; inputs refused at validation were left out (exit 6).
      return counts.invalid > 0 ? 'left-out' : 'done';
  }
}
