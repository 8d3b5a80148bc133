import { formatCost } from '../format-cost.js';
import { formatRunDuration } from '../format-duration.js';
import type { StepProgress } from '../files/run-tally.js';

/** What {@link formatStepGroup} shows of one workflow step besides its counters. */
export interface StepGroupDetails {
  /** Clock ms from the step's first item event to its last (null when it had none). */
  readonly elapsedMs: number | null;
  /** The run clock's virtual seconds per real second (the emulator's), for the duration. @default 1 */
  readonly timeScale?: number | undefined;
  /** Its first failed or unknown items, one line each, already formatted. */
  readonly problems: readonly string[];
  /** Its failed and unknown items beyond `problems`. */
  readonly moreProblems: number;
}

/**
 * One workflow step's block for a GitHub Actions log, written in one piece when the step has
 * settled: a folded `::group::` whose title carries the verdict and the counts, and inside it
 * the counters, the spend and the step's first problems. The runner does not nest groups, so
 * blocks are never open while anything else is written: steps that run at the same time each
 * get their block when they end, and the run's heartbeat lines stay between blocks, unfolded
 * (docs/ci.md).
 */
export function formatStepGroup(step: StepProgress, details: StepGroupDetails): string {
  const notRun = Math.max(0, step.items - step.done - step.failed - step.skipped - step.unknown);
  const bad = step.failed + step.unknown;
  const mark = bad > 0 ? '✗' : notRun > 0 ? '…' : '✓';
  const task = step.task === '' ? '' : ` (${step.task})`;
  const title = [`${step.done}/${step.items} done`, ...(bad > 0 ? [`${bad} failed`] : []), ...(notRun > 0 ? [`${notRun} not run`] : []), formatCost(step.spent)].join(' · ');
  const lines = [
    `::group::${mark} step ${step.id}${task}: ${title}`,
    `  done: ${step.done} of ${step.items}${step.cached > 0 ? ` (${step.cached} from the cache)` : ''}`,
    `  failed: ${step.failed}${step.timedOut > 0 ? ` (${step.timedOut} timed out: the next run adopts their jobs)` : ''}`,
    `  skipped: ${step.skipped}`,
    `  unknown: ${step.unknown}`,
    ...(notRun > 0 ? [`  not run: ${notRun}`] : []),
    `  spent: ${formatCost(step.spent)}`,
    ...(details.elapsedMs === null ? [] : [`  took: ${formatRunDuration(details.elapsedMs, details.timeScale ?? 1)}`]),
    ...details.problems.map((problem) => `  ${problem}`),
    ...(details.moreProblems > 0 ? [`  and ${details.moreProblems} more failed or unknown: see the report`] : []),
    '::endgroup::',
  ];
  return `${lines.join('\n')}\n`;
}
