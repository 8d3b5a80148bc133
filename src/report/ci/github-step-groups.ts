import type { RunEvent } from '../../engine/index.js';
import { isStepSettled, type StepProgress } from '../files/run-tally.js';
import { formatStepGroup } from './github-step-group.js';

interface StepRecord {
  first: number | null;
  last: number | null;
  readonly problems: string[];
  more: number;
  written: boolean;
}

/**
 * Decides when each workflow step's `::group::` block is written in a GitHub Actions log: once,
 * when its last item settles (or when the run ends, for a step that never did). Keeps per step
 * its first and last event times and its first `maxProblems` problem lines, nothing per item.
 */
export class GithubStepGroups {
  private readonly records = new Map<string, StepRecord>();
  private timeScale = 1;

  constructor(private readonly maxProblems = 5) {}

  /**
   * Records `event`, which changed `step` (the tally's answer), with its problem line if it is
   * a failure; returns the step's block when it has just settled.
   */
  apply(event: RunEvent, step: StepProgress | undefined, problem?: string): string | undefined {
    if (event.type === 'run-started') this.timeScale = event.timeScale ?? 1;
    if (step === undefined) return undefined;
    const record = this.record(step.id);
    record.first ??= event.ts;
    record.last = event.ts;
    if (problem !== undefined) {
      if (record.problems.length < this.maxProblems) record.problems.push(problem);
      else record.more += 1;
    }
    return isStepSettled(step) ? this.block(step, record) : undefined;
  }

  /** The blocks of the steps not written yet, in `steps` order (the run ended). */
  rest(steps: readonly StepProgress[]): string[] {
    return steps.flatMap((step) => this.block(step, this.record(step.id)) ?? []);
  }

  private block(step: StepProgress, record: StepRecord): string | undefined {
    if (record.written) return undefined;
    record.written = true;
    const elapsedMs = record.first === null || record.last === null ? null : record.last - record.first;
    return formatStepGroup(step, { elapsedMs, timeScale: this.timeScale, problems: record.problems, moreProblems: record.more });
  }

  private record(id: string): StepRecord {
    let record = this.records.get(id);
    if (record === undefined) {
      record = { first: null, last: null, problems: [], more: 0, written: false };
      this.records.set(id, record);
    }
    return record;
  }
}
