import type { NodeRef, RunEvent } from '../../engine/index.js';

/** Live counters of one step, as progress renderers show them. */
export interface StepProgress {
  readonly id: string;
  readonly task: string;
  items: number;
  /** Finished successfully, cached ones included. */
  done: number;
  cached: number;
  /** Includes `timedOut`. */
  failed: number;
  /** Of `failed`: the job ran past its step's timeout (it still runs at the service; the next run adopts it). */
  timedOut: number;
  skipped: number;
  unknown: number;
  /** Submitted and not finished yet. */
  running: number;
  /** USD charged by finished items. */
  spent: number;
}

export type ProgressTotals = Omit<StepProgress, 'id' | 'task'>;

type RunStarted = Extract<RunEvent, { type: 'run-started' }>;
type RunFinished = Extract<RunEvent, { type: 'run-finished' }>;

/**
 * Folds events into per-step counters for the heartbeat and the task list. Memory grows with
 * jobs in flight (one string per running item), never with the number of items.
 */
export class RunTally {
  readonly steps: StepProgress[] = [];
  started: RunStarted | null = null;
  finished: RunFinished | null = null;
  /** The point of the run's quote (USD), once it is known. */
  quoted: number | null = null;
  private readonly byId = new Map<string, StepProgress>();
  private readonly inFlight = new Set<string>();

  /** Applies `event`; returns the step it changed, if any. */
  apply(event: RunEvent): StepProgress | undefined {
    switch (event.type) {
      case 'run-started':
        this.started = event;
        for (const step of event.steps) this.stepFor(step.id, step.task).items = step.items;
        return undefined;
      case 'run-finished':
        this.finished = event;
        return undefined;
      case 'quoted':
        this.quoted = event.total.point;
        return undefined;
      case 'item-submitted': {
        const step = this.stepOf(event.node);
        if (!this.inFlight.has(flightKey(event.node))) {
          this.inFlight.add(flightKey(event.node));
          step.running += 1;
        }
        return step;
      }
      case 'item-done': {
        const step = this.settle(event.node);
        step.done += 1;
        if (event.cached) step.cached += 1;
        step.spent += event.cost;
        return step;
      }
      case 'item-failed': {
        const step = bump(this.settle(event.node), 'failed');
        // Paid, not saved: charged all the same (in this session, unless `earlier`).
        if (event.unsaved !== undefined && event.unsaved.earlier !== true) step.spent += event.unsaved.cost;
        return step;
      }
      case 'item-timed-out': {
        const step = bump(this.settle(event.node), 'failed');
        step.timedOut += 1;
        return step;
      }
      case 'item-skipped':
        return bump(this.settle(event.node), 'skipped');
      case 'item-unknown':
        return bump(this.settle(event.node), 'unknown');
      default:
        return undefined;
    }
  }

  /** Sums over every step. */
  totals(): ProgressTotals {
    const totals: ProgressTotals = { items: 0, done: 0, cached: 0, failed: 0, timedOut: 0, skipped: 0, unknown: 0, running: 0, spent: 0 };
    for (const step of this.steps) {
      totals.items += step.items;
      totals.done += step.done;
      totals.cached += step.cached;
      totals.failed += step.failed;
      totals.timedOut += step.timedOut;
      totals.skipped += step.skipped;
      totals.unknown += step.unknown;
      totals.running += step.running;
      totals.spent += step.spent;
    }
    return totals;
  }

  private settle(node: NodeRef): StepProgress {
    const step = this.stepOf(node);
    if (this.inFlight.delete(flightKey(node))) step.running -= 1;
    return step;
  }

  private stepOf(node: NodeRef): StepProgress {
    const step = this.byId.get(node.step) ?? this.stepFor(node.step, '');
    // A step the run-started event did not announce still gets a sensible item count.
    if (node.index >= step.items) step.items = node.index + 1;
    return step;
  }

  private stepFor(id: string, task: string): StepProgress {
    let step = this.byId.get(id);
    if (step === undefined) {
      step = { id, task, items: 0, done: 0, cached: 0, failed: 0, timedOut: 0, skipped: 0, unknown: 0, running: 0, spent: 0 };
      this.byId.set(id, step);
      this.steps.push(step);
    }
    return step;
  }
}

/** True when every item of `step` reached a final state. */
export function isStepSettled(step: ProgressTotals): boolean {
  return step.done + step.failed + step.skipped + step.unknown >= step.items;
}

function bump(step: StepProgress, field: 'failed' | 'skipped' | 'unknown'): StepProgress {
  step[field] += 1;
  return step;
}

function flightKey(node: NodeRef): string {
  return `${node.step}\u0000${node.index}`;
}
