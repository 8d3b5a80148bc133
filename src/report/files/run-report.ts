import type { EventError, NodeRef, RunEvent } from '../../engine/index.js';
import { isoOrNull, roundUsd, subtractMicros, toMicros, toUsd, UsdTally, writeFileAtomically } from '../../common/index.js';
import { ReportWriteError } from './report-write-error.js';
import type {
  ItemStatus,
  ReportBudget,
  ReportInvocation,
  ReportItem,
  ReportQuote,
  ReportStep,
  ReportStepSummary,
  ReportTotals,
  RunReport,
  RunReportSource,
  RunReportSummary,
} from './run-report-types.js';
import { STATUS, type StatusCode, StepRecord } from './step-record.js';

/** Code given to items whose submission outcome cannot be known (the event carries only a reason). */
export const UNKNOWN_ITEM_CODE = 'E_JOB_UNKNOWN';
const MAX_WARNINGS = 100;

type RunStarted = Extract<RunEvent, { type: 'run-started' }>;
type RunFinished = Extract<RunEvent, { type: 'run-finished' }>;

/**
 * Folds the engine's events into the versioned run report (`--report run.json`). Items are
 * stored column-wise per step (see {@link StepRecord}), so a 100,000-item run stays small;
 * report objects are built only when read.
 */
export class RunReportBuilder implements RunReportSource {
  private started: RunStarted | null = null;
  private finished: RunFinished | null = null;
  private quote: ReportQuote | null = null;
  private dailyLimit: { pool: string; resetAt: number | null } | null = null;
  private readonly warnings: string[] = [];
  private warningsDropped = 0;
  private readonly steps: StepRecord[] = [];
  private readonly byId = new Map<string, StepRecord>();

  /** Bound, so it can be passed as a `RunEventSink`. */
  readonly handle = (event: RunEvent): void => {
    switch (event.type) {
      case 'run-started':
        this.started = event;
        for (const step of event.steps) this.addStep(step.id, step.task, step.items);
        return;
      case 'quoted':
        this.quote = {
          exact: usd(event.total.exact),
          estimated: usd(event.total.estimated.point),
          point: usd(event.total.point),
          low: usd(event.total.low),
          high: usd(event.total.high),
          unknown_items: event.total.unknownItems,
          price_requests: event.priceRequests,
          balance: event.balance,
          max_cost: event.maxCost,
          verdict: event.verdict,
          verdict_reason: event.reason,
        };
        return;
      case 'item-submitted':
        this.onSubmitted(event);
        return;
      case 'item-progress': {
        const { step, index } = this.locate(event.node);
        if (step.status[index] === STATUS.pending) step.setStatus(index, STATUS.running);
        return;
      }
      case 'item-retry': {
        // A retry of a timed-out job polls that same job: no submission to count.
        if (event.requestId !== undefined) return;
        const { step, index } = this.locate(event.node);
        step.attempts[index] = Math.max(step.attempts[index]!, event.attempt);
        return;
      }
      case 'item-done':
        this.onDone(event);
        return;
      case 'item-failed': {
        const { step, index } = this.locate(event.node);
        this.settle(step, index, event.unsaved === undefined ? STATUS.failed : STATUS.unsaved, event.ts, event.startedAt);
        if (event.requestId !== null) step.requestIds[index] = event.requestId;
        if (event.unsaved !== undefined) step.actual[index] = event.unsaved.cost;
        step.errors.set(index, event.error);
        return;
      }
      case 'item-skipped': {
        const { step, index } = this.locate(event.node);
        this.settle(step, index, STATUS.skipped, event.ts, null);
        step.skipReasons.set(index, event.reason);
        step.setSkipKind(index, event.kind ?? 'upstream');
        return;
      }
      case 'item-deferred': {
        const { step, index } = this.locate(event.node);
        step.setStatus(index, STATUS.deferred);
        step.skipReasons.set(index, `the daily limit of ${event.pool} is used up${event.resetAt === null ? '' : ` until ${new Date(event.resetAt).toISOString()}`}; a later run submits it`);
        return;
      }
      case 'item-timed-out': {
        const { step, index } = this.locate(event.node);
        this.settle(step, index, STATUS.timedOut, event.ts, event.startedAt);
        step.requestIds[index] = event.requestId;
        step.errors.set(index, event.error);
        return;
      }
      case 'item-unknown': {
        const { step, index } = this.locate(event.node);
        this.settle(step, index, STATUS.unknown, event.ts, null);
        step.errors.set(index, unknownError(event.reason));
        return;
      }
      case 'daily-limit':
        this.dailyLimit = { pool: event.pool, resetAt: event.resetAt };
        return;
      case 'warning':
        if (this.warnings.length < MAX_WARNINGS) this.warnings.push(event.message);
        else this.warningsDropped += 1;
        return;
      case 'run-finished':
        this.finished = event;
        return;
      case 'throttled':
      case 'rate-wait':
      case 'item-queued':
      case 'item-downloading':
        return;
    }
  };

  summary(): RunReportSummary {
    const steps = this.steps.map(summarizeStep);
    const startedMs = this.started?.ts ?? null;
    const finishedMs = this.finished?.ts ?? null;
    const totals = sumTotals(steps);
    return {
      format_version: 1,
      run_id: this.finished?.runId ?? this.started?.runId ?? '',
      workflow: this.started?.workflow ?? '',
      workflow_name: this.started?.workflowName ?? '',
      status: this.finished?.status ?? (this.started === null ? 'incomplete' : 'running'),
      exit_code: this.finished?.exitCode ?? null,
      started_at: isoOrNull(startedMs),
      finished_at: isoOrNull(finishedMs),
      duration_ms: startedMs === null || finishedMs === null ? null : Math.max(0, finishedMs - startedMs),
      time_scale: this.started?.timeScale ?? 1,
      resumed: this.started?.resumed ?? false,
      resume_command: this.finished?.resumeCommand ?? null,
      quote: this.quote,
      invocations: this.invocations(totals.cost_actual),
      budget: this.budget(),
      daily_limit:
        this.dailyLimit === null ? null : { pool: this.dailyLimit.pool, reset_at: isoOrNull(this.dailyLimit.resetAt) },
      deferred: (this.finished?.deferred ?? []).map((d) => ({ pool: d.pool, reset_at: isoOrNull(d.resetAt), items: d.items })),
      warnings: [...this.warnings],
      warnings_dropped: this.warningsDropped,
      totals,
      steps,
    };
  }

  /** Earlier sessions (from `run-started`), then this one with the rest of the run's cost. */
  private invocations(total: number): ReportInvocation[] {
    if (this.started === null) return [];
    const earlier = this.started.earlier ?? [];
    const before = new UsdTally();
    const out: ReportInvocation[] = earlier.map((e, i) => {
      before.add(e.spent);
      return { index: i + 1, started_at: isoOrNull(e.startedAt), finished_at: isoOrNull(e.finishedAt), status: e.status, cost_actual: usd(e.spent), current: false };
    });
    const status = this.finished?.status ?? 'running';
    out.push({
      index: earlier.length + 1,
      started_at: isoOrNull(this.started.ts),
      finished_at: isoOrNull(this.finished?.ts ?? null),
      status,
      cost_actual: toUsd(subtractMicros(toMicros(total), before.micros)),
      current: true,
    });
    return out;
  }

  private budget(): ReportBudget | null {
    const budget = this.finished?.budget;
    if (!budget) return null;
    const refused = budget.refused;
    return {
      max_cost: budget.maxCost,
      allow_unpriced: budget.allowUnpriced,
      verdict: budget.verdict,
      reason: budget.reason,
      refused: refused === null ? null : { ...refused.node, amount: refused.amount, how: refused.how, spent: refused.spent, reserved: refused.reserved },
    };
  }

  /** Marks the report as written after a crash: a started run without `run-finished` is `incomplete`. */
  summaryForWrite(): RunReportSummary {
    const summary = this.summary();
    return summary.status === 'running' ? { ...summary, status: 'incomplete' } : summary;
  }

  *items(stepId: string, filter?: (status: ItemStatus) => boolean): Iterable<ReportItem> {
    const step = this.byId.get(stepId);
    if (step === undefined) return;
    for (let i = 0; i < step.size; i++) {
      if (filter === undefined || filter(step.statusOf(i))) yield step.item(i);
    }
  }

  toJSON(): RunReport {
    const summary = this.summaryForWrite();
    const steps: ReportStep[] = summary.steps.map((step) => ({ ...step, items: [...this.items(step.id)] }));
    return { ...summary, steps };
  }

  /**
   * The report as JSON text, one item per line, produced piece by piece so a large run is never
   * held as one object graph. `JSON.parse` of the concatenation equals {@link toJSON}.
   */
  *toJSONChunks(): Iterable<string> {
    const { steps, ...head } = this.summaryForWrite();
    yield `${openObject(head)},"steps":[`;
    let firstStep = true;
    for (const step of steps) {
      yield `${firstStep ? '' : ','}\n${openObject(step)},"items":[`;
      firstStep = false;
      let firstItem = true;
      for (const item of this.items(step.id)) {
        yield `${firstItem ? '' : ','}\n${JSON.stringify(item)}`;
        firstItem = false;
      }
      yield ']}';
    }
    yield '\n]}\n';
  }

  /** Writes the report to `path` atomically (common's writer: a fresh temporary name, fsync, rename). */
  async writeReport(path: string): Promise<void> {
    try {
      await writeFileAtomically(path, this.toJSONChunks(), { makeFolder: true });
    } catch (error) {
      throw new ReportWriteError(path, 'run report', error);
    }
  }

  private onSubmitted(event: Extract<RunEvent, { type: 'item-submitted' }>): void {
    const { step, index } = this.locate(event.node);
    if (step.status[index] === STATUS.pending) step.setStatus(index, STATUS.running);
    step.requestIds[index] = event.requestId;
    step.attempts[index] = Math.max(step.attempts[index]!, event.attempt);
    // A later submission of the item (a retry) is its own job, not the adopted one.
    if (event.adopted === true) step.adopted.add(index);
    else step.adopted.delete(index);
    if (event.quotedCost !== null) step.quoted[index] = event.quotedCost;
    if (Number.isNaN(step.startedAt[index]!)) step.startedAt[index] = event.ts;
  }

  private onDone(event: Extract<RunEvent, { type: 'item-done' }>): void {
    const { step, index } = this.locate(event.node);
    this.settle(step, index, STATUS.done, event.ts, event.startedAt);
    step.setCached(index, event.cached);
    if (event.adopted === true) step.adopted.add(index);
    step.actual[index] = event.cost;
    if (event.quotedCost !== null) step.quoted[index] = event.quotedCost;
    if (event.requestId !== null) step.requestIds[index] = event.requestId;
    if (event.outputs.length > 0) step.outputs[index] = event.outputs;
  }

  private settle(step: StepRecord, index: number, code: StatusCode, ts: number, startedAt: number | null): void {
    step.setStatus(index, code);
    step.finishedAt[index] = ts;
    const known = step.startedAt[index]!;
    if (startedAt !== null && (Number.isNaN(known) || startedAt < known)) step.startedAt[index] = startedAt;
  }

  private locate(node: NodeRef): { step: StepRecord; index: number } {
    const step = this.byId.get(node.step) ?? this.addStep(node.step, '', 0);
    step.ensure(node.index);
    step.keys[node.index] = node.key;
    return { step, index: node.index };
  }

  private addStep(id: string, task: string, items: number): StepRecord {
    const existing = this.byId.get(id);
    if (existing !== undefined) return existing;
    const step = new StepRecord(id, task, items);
    this.byId.set(id, step);
    this.steps.push(step);
    return step;
  }
}

function unknownError(reason: string): EventError {
  return { code: UNKNOWN_ITEM_CODE, message: `outcome unknown: ${reason}` };
}

function summarizeStep(step: StepRecord): ReportStepSummary {
  const costs = step.costs();
  const { first, last } = step.span();
  return {
    id: step.id,
    task: step.task,
    cost_quoted: costs.quoted,
    cost_actual: costs.actual,
    started_at: isoOrNull(first),
    finished_at: isoOrNull(last),
    duration_ms: Number.isNaN(first) || Number.isNaN(last) ? null : Math.max(0, last - first),
    counts: step.countsSummary(),
  };
}

function sumTotals(steps: readonly ReportStepSummary[]): ReportTotals {
  const totals = { items: 0, done: 0, cached: 0, failed: 0, unsaved: 0, timed_out: 0, skipped: 0, unknown: 0, pending: 0, deferred: 0, invalid: 0, blocked: 0 };
  const quoted = new UsdTally();
  const actual = new UsdTally();
  for (const step of steps) {
    for (const key of ['items', 'done', 'cached', 'failed', 'unsaved', 'timed_out', 'skipped', 'unknown', 'pending', 'deferred', 'invalid', 'blocked'] as const) {
      totals[key] += step.counts[key];
    }
    quoted.add(step.cost_quoted);
    actual.add(step.cost_actual);
  }
  return { ...totals, cost_quoted: quoted.usd, cost_actual: actual.usd };
}

/** USD rounded to micro-dollars. */
const usd = roundUsd;

/** `{"a":1}` → `{"a":1` so more members can follow. */
function openObject(value: object): string {
  return JSON.stringify(value).slice(0, -1);
}
