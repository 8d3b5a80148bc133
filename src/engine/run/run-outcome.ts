/**
 * A run's final status and exit code (README, "Exit codes"): why it stopped, if it stopped,
 * decides first; then items deferred by a daily limit (exit 5); otherwise any failed or
 * unknown item, or one left out as invalid (`--keep-going`), makes it a failure.
 */
import { EXIT } from '../../common/index.js';
import type { RunStatus } from '../contracts/events.js';
import type { StopReason } from './job-errors.js';
import type { RunCounts } from './run-state.js';

export interface RunVerdict {
  readonly status: RunStatus;
  readonly exitCode: number;
}

/**
 * `accepted` is how many jobs the service accepted in this run: a refusal before the first
 * one is exit 3 (nothing was spent); after it, the run simply failed.
 */
export function decideOutcome(reason: StopReason | null, counts: RunCounts, accepted: number): RunVerdict {
  switch (reason) {
    case 'interrupted':
      return { status: 'interrupted', exitCode: EXIT.interrupted };
    case 'daily-limit':
      return { status: 'daily-limit', exitCode: EXIT.dailyLimit };
    case 'over-budget':
      return { status: 'over-budget', exitCode: EXIT.overBudget };
    case 'refused':
      return accepted === 0 ? { status: 'refused', exitCode: EXIT.refused } : { status: 'failed', exitCode: EXIT.failed };
    case 'fatal':
      return { status: 'failed', exitCode: EXIT.failed };
    case null:
      // Items waiting for a daily window come first: the run is resumable, and says when.
      if (counts.deferred > 0) return { status: 'daily-limit', exitCode: EXIT.dailyLimit };
      return counts.failed + counts.unknown + counts.invalid > 0 ? { status: 'failed', exitCode: EXIT.failed } : { status: 'done', exitCode: EXIT.ok };
  }
}
