/**
 * Prometheus metrics of runs and workers, from the run events (prom-client). A `deflow worker`
 * or a `--queue` coordinator serves them on `/metrics` while it runs (`--metrics-port`); a
 * one-process `deflow run` pushes its final figures to a Pushgateway (`--pushgateway URL`, the
 * Prometheus convention for batch jobs) or writes them in the node_exporter textfile format
 * (`--metrics-file FILE`). No run id in any label (one series per run would grow without
 * bound); the workflow's name is a label. Loaded only when one of those flags is given.
 */
import { Counter, Gauge, Pushgateway, Registry } from 'prom-client';
import type { RunEvent } from '../../engine/index.js';

/** Every metric deflow exports: name, type and help (docs/operating.md is generated from it). */
export const METRICS = {
  jobs: { name: 'deflow_jobs_total', help: 'Item jobs that ended, by workflow, step, task and state (done, cached, failed, unsaved, skipped, deferred, unknown).', labels: ['workflow', 'step', 'task', 'state'] },
  spend: { name: 'deflow_spend_usd_total', help: 'USD charged by the service for the jobs this process saw end (cache hits cost 0).', labels: ['workflow'] },
  submitted: { name: 'deflow_jobs_submitted_total', help: 'Submissions accepted by the service.', labels: ['workflow', 'step', 'task'] },
  throttled: { name: 'deflow_rate_limited_total', help: 'HTTP 429 answers, by rate-limit pool.', labels: ['pool'] },
  waits: { name: 'deflow_rate_limit_wait_seconds_total', help: 'Seconds requests were held back waiting for a rate-limit window, by pool (the service clock).', labels: ['pool'] },
  inFlight: { name: 'deflow_jobs_in_flight', help: 'Jobs submitted and not yet ended.', labels: ['workflow'] },
  poolLimit: { name: 'deflow_pool_limit_requests', help: 'The learned rate limit of a pool: requests per window.', labels: ['pool', 'window_seconds'] },
  runItems: { name: 'deflow_run_items', help: 'Items of the last run by state, when it ended.', labels: ['workflow', 'state'] },
  runSpend: { name: 'deflow_run_spend_usd', help: 'USD the last run spent, in every session of it.', labels: ['workflow'] },
  runQuote: { name: 'deflow_run_quote_usd', help: "The last run's quote (bound: point, low, high).", labels: ['workflow', 'bound'] },
  runExit: { name: 'deflow_run_exit_code', help: 'Exit code of the last run (0 done, 1 failed items, 4 over budget, 5 daily limit, …).', labels: ['workflow'] },
  runDuration: { name: 'deflow_run_duration_seconds', help: 'Real seconds the last session of the run took.', labels: ['workflow'] },
  lastSuccess: { name: 'deflow_last_success_timestamp_seconds', help: 'Unix time of the last run that ended with exit 0 (not pushed otherwise).', labels: ['workflow'] },
  workerUp: { name: 'deflow_worker_up', help: '1 while this worker takes jobs, 0 once it stops.', labels: [] },
  workerJobs: { name: 'deflow_worker_jobs_finished_total', help: 'Jobs this worker finished.', labels: [] },
  queueDepth: { name: 'deflow_queue_depth', help: 'Jobs waiting in the queue, by step (coordinator).', labels: ['workflow', 'step'] },
} as const;

export interface RunMetricsOptions {
  /** The workflow's name (`name:`, else the file's base name). */
  readonly workflow: string;
  /** Step id → task. */
  readonly tasks: ReadonlyMap<string, string>;
  /** Real wall time in ms. @default Date.now */
  readonly now?: () => number;
}

export class RunMetrics {
  readonly registry = new Registry();
  readonly #workflow: string;
  readonly #tasks: ReadonlyMap<string, string>;
  readonly #now: () => number;
  readonly #jobs: Counter;
  readonly #spend: Counter;
  readonly #submitted: Counter;
  readonly #throttled: Counter;
  readonly #waits: Counter;
  readonly #inFlight: Gauge;
  readonly #poolLimit: Gauge;
  readonly #runItems: Gauge;
  readonly #runSpend: Gauge;
  readonly #runQuote: Gauge;
  readonly #runExit: Gauge;
  readonly #runDuration: Gauge;
  readonly #lastSuccess: Gauge;
  readonly #queueDepth: Gauge;
  readonly #open = new Set<string>();
  #startedAt: number | null = null;

  constructor(options: RunMetricsOptions) {
    this.#workflow = options.workflow;
    this.#tasks = options.tasks;
    this.#now = options.now ?? Date.now;
    const counter = (m: { name: string; help: string; labels: readonly string[] }) => new Counter({ name: m.name, help: m.help, labelNames: [...m.labels], registers: [this.registry] });
    const gauge = (m: { name: string; help: string; labels: readonly string[] }) => new Gauge({ name: m.name, help: m.help, labelNames: [...m.labels], registers: [this.registry] });
    this.#jobs = counter(METRICS.jobs);
    this.#spend = counter(METRICS.spend);
    this.#submitted = counter(METRICS.submitted);
    this.#throttled = counter(METRICS.throttled);
    this.#waits = counter(METRICS.waits);
    this.#inFlight = gauge(METRICS.inFlight);
    this.#poolLimit = gauge(METRICS.poolLimit);
    this.#runItems = gauge(METRICS.runItems);
    this.#runSpend = gauge(METRICS.runSpend);
    this.#runQuote = gauge(METRICS.runQuote);
    this.#runExit = gauge(METRICS.runExit);
    this.#runDuration = gauge(METRICS.runDuration);
    this.#lastSuccess = gauge(METRICS.lastSuccess);
    this.#queueDepth = gauge(METRICS.queueDepth);
    this.#inFlight.set({ workflow: this.#workflow }, 0);
    this.#spend.inc({ workflow: this.#workflow }, 0);
  }

  /** Jobs waiting in the queue for a step (the coordinator reads it from the queue). */
  setQueueDepth(step: string, depth: number): void {
    this.#queueDepth.set({ workflow: this.#workflow, step }, depth);
  }

  readonly handle = (event: RunEvent): void => {
    const workflow = this.#workflow;
    const ended = (step: string, index: number, state: string, cost: number): void => {
      this.#jobs.inc({ workflow, step, task: this.#tasks.get(step) ?? '', state });
      if (cost > 0) this.#spend.inc({ workflow }, cost);
      if (this.#open.delete(`${step}\u0000${index}`)) this.#inFlight.dec({ workflow });
    };
    switch (event.type) {
      case 'run-started':
        this.#startedAt = this.#now();
        return;
      case 'quoted':
        this.#runQuote.set({ workflow, bound: 'point' }, event.total.point);
        this.#runQuote.set({ workflow, bound: 'low' }, event.total.low);
        this.#runQuote.set({ workflow, bound: 'high' }, event.total.high);
        return;
      case 'item-submitted': {
        this.#submitted.inc({ workflow, step: event.node.step, task: this.#tasks.get(event.node.step) ?? '' });
        const key = `${event.node.step}\u0000${event.node.index}`;
        if (!this.#open.has(key)) {
          this.#open.add(key);
          this.#inFlight.inc({ workflow });
        }
        return;
      }
      case 'item-done':
        if (event.earlier === true) return;
        ended(event.node.step, event.node.index, event.cached ? 'cached' : 'done', event.cost);
        return;
      case 'item-failed':
        if (event.unsaved?.earlier === true) return;
        ended(event.node.step, event.node.index, event.unsaved === undefined ? 'failed' : 'unsaved', event.unsaved?.cost ?? 0);
        return;
      case 'item-skipped':
        ended(event.node.step, event.node.index, 'skipped', 0);
        return;
      case 'item-deferred':
        ended(event.node.step, event.node.index, 'deferred', 0);
        return;
      case 'item-unknown':
        ended(event.node.step, event.node.index, 'unknown', 0);
        return;
      case 'throttled':
        this.#throttled.inc({ pool: event.pool });
        return;
      case 'rate-wait':
        this.#waits.inc({ pool: event.pool }, event.waitMs / 1000);
        if (event.limit !== undefined && event.windowSeconds !== undefined) this.#poolLimit.set({ pool: event.pool, window_seconds: String(event.windowSeconds) }, event.limit);
        return;
      case 'run-finished': {
        const c = event.counts;
        const states: Record<string, number> = { done: c.done, cached: c.cached, failed: c.failed, unsaved: c.unsaved ?? 0, skipped: c.skipped, unknown: c.unknown, pending: c.pending, deferred: c.deferred ?? 0 };
        for (const [state, n] of Object.entries(states)) this.#runItems.set({ workflow, state }, n);
        this.#runSpend.set({ workflow }, event.spent);
        this.#runExit.set({ workflow }, event.exitCode);
        if (this.#startedAt !== null) this.#runDuration.set({ workflow }, (this.#now() - this.#startedAt) / 1000);
        if (event.exitCode === 0) this.#lastSuccess.set({ workflow }, Math.floor(this.#now() / 1000));
        return;
      }
      default:
        return;
    }
  };

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Pushes to a Pushgateway under `job="deflow"` and the workflow's grouping key (replacing the group). */
  async push(url: string): Promise<void> {
    const gateway = new Pushgateway(url, { timeout: 5000 }, this.registry);
    await gateway.push({ jobName: 'deflow', groupings: { workflow: this.#workflow } });
  }
}

/** Worker liveness and throughput, beside a worker's run metrics. */
export class WorkerMetrics {
  readonly #up: Gauge;
  readonly #finished: Counter;

  constructor(registry: Registry) {
    this.#up = new Gauge({ name: METRICS.workerUp.name, help: METRICS.workerUp.help, registers: [registry] });
    this.#finished = new Counter({ name: METRICS.workerJobs.name, help: METRICS.workerJobs.help, registers: [registry] });
    this.#up.set(1);
  }

  readonly handle = (event: RunEvent): void => {
    if (event.type === 'item-done' || event.type === 'item-failed' || event.type === 'item-unknown') this.#finished.inc();
  };

  stopped(): void {
    this.#up.set(0);
  }
}
