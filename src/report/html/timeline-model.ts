import type { LoggedEvent } from '../terminal/event-log.js';

/*
 * What the HTML report draws, gathered from a run's event log (every session of the run):
 * each job's phases, each pool's waits and 429s, costs per step, failures and totals.
 * Times are ms on the run's clock (virtual on the emulator).
 */

/** How a job ended (`running`/`pending`: the log stops before it did). */
export type JobOutcome = 'done' | 'cached' | 'failed' | 'skipped' | 'unknown' | 'timed-out' | 'running' | 'pending';

/** One job's phases: queued → submitted → processing → downloading → end. NaN: not reached (or not seen). */
export interface TimelineJob {
  readonly index: number;
  readonly key: string;
  queued: number;
  submitted: number;
  processing: number;
  downloading: number;
  end: number;
  outcome: JobOutcome;
  /** Submissions seen (retries add one each). */
  attempts: number;
  /** Times of retries (a failed job resubmitted). */
  readonly retries: number[];
  cost: number;
  quoted: number | null;
  /** Its job was adopted: its submission's answer was lost and a webhook delivery named the item (docs/running.md). */
  adopted: boolean;
}

export interface TimelineStep {
  readonly id: string;
  readonly task: string;
  readonly items: number;
  readonly jobs: Map<number, TimelineJob>;
  costActual: number;
  /** Σ quoted price of its items that were submitted or finished. */
  costQuoted: number;
  quotedItems: number;
}

export interface TimelinePool {
  readonly pool: string;
  /** Waits for a window to refill: [start, end]. */
  readonly waits: [number, number][];
  /** 429s: [time, Retry-After wait in ms]. */
  readonly throttles: [number, number][];
  /** Daily limits: [time, reset time or NaN]. */
  readonly daily: [number, number][];
}

export interface TimelineFailure {
  readonly step: string;
  readonly index: number;
  readonly key: string;
  readonly outcome: 'failed' | 'unknown' | 'skipped' | 'timed-out';
  readonly code: string;
  readonly message: string;
  readonly reason: string | null;
  readonly at: number;
}

export interface TimelineSession {
  readonly start: number;
  /** When its quote was made (the scheduler starts then); NaN when it made none. */
  quoted: number;
  end: number;
  status: string;
}

export interface TimelineModel {
  runId: string;
  workflow: string;
  workflowName: string;
  status: string;
  exitCode: number | null;
  /** The clock ms of the first and last event. */
  start: number;
  /** Virtual seconds per real second of the run's clock (the emulator's accelerated clock), 1 on real time. */
  timeScale: number;
  /** Real wall time (epoch ms) when the run's first session started, on the emulator's accelerated clock; NaN otherwise. */
  realStart: number;
  end: number;
  readonly sessions: TimelineSession[];
  readonly steps: TimelineStep[];
  readonly pools: Map<string, TimelinePool>;
  readonly failures: TimelineFailure[];
  /** What the run spent, as its last `run-finished` event states it (every session); NaN before one. */
  spent: number;
  /** The run's quote (from the `quoted` event), or null. */
  quote: { point: number; low: number; high: number; unknownItems: number; verdict: string } | null;
  readonly warnings: string[];
  /** Lines of the log that were not events (a torn line). */
  skippedLines: number;
}

/** Builds the model from the events of a run's log, in order. */
export function buildTimeline(events: Iterable<LoggedEvent>, skippedLines = 0): TimelineModel {
  const model: TimelineModel = {
    runId: '',
    workflow: '',
    workflowName: '',
    status: 'incomplete',
    exitCode: null,
    start: Number.NaN,
    timeScale: 1,
    realStart: Number.NaN,
    end: Number.NaN,
    sessions: [],
    steps: [],
    pools: new Map(),
    failures: [],
    spent: Number.NaN,
    quote: null,
    warnings: [],
    skippedLines,
  };
  const stepById = new Map<string, TimelineStep>();
  const failures = new Map<string, TimelineFailure>();
  let sessionStart = Number.NaN;
  for (const event of events) {
    const ts = num(event['ts']);
    if (!Number.isNaN(ts)) {
      if (Number.isNaN(model.start) || ts < model.start) model.start = ts;
      if (Number.isNaN(model.end) || ts > model.end) model.end = ts;
    }
    switch (event.type) {
      case 'run-started': {
        model.runId = str(event['run_id']);
        model.workflow = str(event['workflow']);
        model.workflowName = str(event['workflow_name']);
        model.status = 'running';
        if (typeof event['time_scale'] === 'number' && event['time_scale'] > 0) model.timeScale = event['time_scale'];
        if (model.sessions.length === 0 && typeof event['real_started_at'] === 'number') model.realStart = event['real_started_at'];
        sessionStart = ts;
        model.sessions.push({ start: ts, quoted: Number.NaN, end: Number.NaN, status: 'running' });
        for (const step of arr(event['steps'])) {
          const id = str(step['id']);
          if (stepById.has(id)) continue;
          const added: TimelineStep = { id, task: str(step['task']), items: num(step['items']), jobs: new Map(), costActual: 0, costQuoted: 0, quotedItems: 0 };
          stepById.set(id, added);
          model.steps.push(added);
        }
        break;
      }
      case 'quoted': {
        const total = obj(event['total']);
        // The scheduler starts once the quote is made: jobs with no upstream are queued from here.
        sessionStart = ts;
        const session = model.sessions.at(-1);
        if (session !== undefined) session.quoted = ts;
        model.quote = { point: num(total['point']), low: num(total['low']), high: num(total['high']), unknownItems: num(total['unknown_items']), verdict: str(event['verdict']) };
        break;
      }
      case 'item-queued':
        job(event, stepById, model.steps, sessionStart).queued = ts;
        break;
      case 'item-submitted': {
        const j = job(event, stepById, model.steps, sessionStart);
        if (Number.isNaN(j.submitted)) j.submitted = ts;
        j.attempts++;
        j.outcome = 'running';
        if (event['adopted'] === true) {
          j.adopted = true;
          // The item an earlier session left unknown has its job now: no longer a failure.
          failures.delete(`${nodeStep(event)}\0${j.index}`);
        }
        noteQuote(j, event, stepById);
        break;
      }
      case 'item-progress': {
        const j = job(event, stepById, model.steps, sessionStart);
        if (Number.isNaN(j.processing) && str(event['status']) === 'processing') j.processing = ts;
        break;
      }
      case 'item-downloading':
        job(event, stepById, model.steps, sessionStart).downloading = ts;
        break;
      case 'item-retry':
        job(event, stepById, model.steps, sessionStart).retries.push(ts);
        break;
      case 'item-done': {
        const j = job(event, stepById, model.steps, sessionStart);
        const earlier = event['earlier'] === true;
        if (earlier && (j.outcome === 'done' || j.outcome === 'cached')) break;
        const step = stepById.get(nodeStep(event))!;
        j.end = ts;
        j.outcome = event['cached'] === true ? 'cached' : 'done';
        if (event['adopted'] === true) j.adopted = true;
        if (Number.isNaN(j.submitted) && !earlier && j.outcome === 'done') j.submitted = num(event['started_at']);
        setCost(step, j, num(event['cost']) || 0);
        noteQuote(j, event, stepById);
        break;
      }
      case 'item-failed':
      case 'item-unknown':
      case 'item-timed-out':
      case 'item-skipped': {
        const j = job(event, stepById, model.steps, sessionStart);
        const outcome = event.type === 'item-failed' ? 'failed' : event.type === 'item-unknown' ? 'unknown' : event.type === 'item-timed-out' ? 'timed-out' : 'skipped';
        // A later session skips an item left out (or blocked) again: it is the same skip, drawn and listed once.
        if (outcome === 'skipped' && j.outcome === 'skipped') break;
        // Skipped without ever being sent: it never waited in a queue, so no queued bar leads to its mark.
        if (outcome === 'skipped' && Number.isNaN(j.submitted)) j.queued = ts;
        j.end = ts;
        j.outcome = outcome;
        const error = obj(event['error']);
        // Paid, not saved: charged all the same (once: a later session's done event names the same charge).
        const unsaved = obj(event['unsaved']);
        if (event.type === 'item-failed' && typeof unsaved['cost'] === 'number' && unsaved['earlier'] !== true) setCost(stepById.get(nodeStep(event))!, j, unsaved['cost']);
        // One line per item: a later session's outcome replaces the earlier one's.
        const node = `${nodeStep(event)}\0${j.index}`;
        failures.delete(node);
        failures.set(node, {
          step: nodeStep(event),
          index: j.index,
          key: j.key,
          outcome,
          code: outcome === 'failed' || outcome === 'timed-out' ? str(error['code']) : outcome === 'unknown' ? 'unknown' : 'skipped',
          message: outcome === 'failed' ? str(error['message']) : outcome === 'timed-out' ? `${str(error['message'])} (job ${str(event['request_id'])} still runs at the service; the next run adopts it)` : str(event['reason']),
          reason: typeof error['reason'] === 'string' ? error['reason'] : null,
          at: ts,
        });
        break;
      }
      case 'throttled':
      case 'rate-wait':
      case 'daily-limit': {
        const name = str(event['pool']);
        let pool = model.pools.get(name);
        if (pool === undefined) {
          pool = { pool: name, waits: [], throttles: [], daily: [] };
          model.pools.set(name, pool);
        }
        if (event.type === 'throttled') pool.throttles.push([ts, num(event['wait_ms'])]);
        else if (event.type === 'rate-wait') pool.waits.push([ts, ts + num(event['wait_ms'])]);
        else pool.daily.push([ts, num(event['reset_at'])]);
        break;
      }
      case 'warning':
        if (model.warnings.length < 20) model.warnings.push(str(event['message']));
        break;
      case 'run-finished': {
        model.status = str(event['status']);
        model.exitCode = num(event['exit_code']);
        if (typeof event['spent'] === 'number') model.spent = event['spent'];
        const session = model.sessions.at(-1);
        if (session !== undefined) {
          session.end = ts;
          session.status = model.status;
        }
        break;
      }
      default:
        break;
    }
  }
  for (const session of model.sessions) if (session.status === 'running' && model.status !== 'running') session.status = 'crashed';
  for (const failure of failures.values()) model.failures.push(failure);
  return model;
}

/** A job's charge: set, not added, so that one job's charge seen by two sessions counts once. */
function setCost(step: TimelineStep, j: TimelineJob, cost: number): void {
  step.costActual += cost - j.cost;
  j.cost = cost;
}

/** The job an item event names, created on first sight (queued from its session's start). */
function job(event: LoggedEvent, steps: Map<string, TimelineStep>, ordered: TimelineStep[], sessionStart: number): TimelineJob {
  const node = obj(event['node']);
  const id = str(node['step']);
  let step = steps.get(id);
  if (step === undefined) {
    step = { id, task: '', items: 0, jobs: new Map(), costActual: 0, costQuoted: 0, quotedItems: 0 };
    steps.set(id, step);
    ordered.push(step);
  }
  const index = num(node['index']);
  let found = step.jobs.get(index);
  if (found === undefined) {
    found = {
      index,
      key: str(node['key']),
      queued: sessionStart,
      submitted: Number.NaN,
      processing: Number.NaN,
      downloading: Number.NaN,
      end: Number.NaN,
      outcome: 'pending',
      attempts: 0,
      retries: [],
      cost: 0,
      quoted: null,
      adopted: false,
    };
    step.jobs.set(index, found);
  }
  return found;
}

function noteQuote(j: TimelineJob, event: LoggedEvent, steps: Map<string, TimelineStep>): void {
  const quoted = event['quoted_cost'];
  if (j.quoted !== null || typeof quoted !== 'number') return;
  j.quoted = quoted;
  const step = steps.get(nodeStep(event))!;
  step.costQuoted += quoted;
  step.quotedItems++;
}

function nodeStep(event: LoggedEvent): string {
  return str(obj(event['node'])['step']);
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function arr(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(obj) : [];
}
