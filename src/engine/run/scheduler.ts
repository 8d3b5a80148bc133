/**
 * Runs the job graph. A node becomes ready when every node it depends on is done: item k of a
 * chained step as soon as item k upstream is done (no barrier between steps), a gather when
 * all its items are, a `needs` when the whole needed step is. Ready nodes start as slots free
 * up, later steps first (they finish work already paid for), each step bounded by the
 * concurrency controller and the run by `--concurrency`; the rate governor inside the client
 * paces the requests themselves. A node that fails or is skipped skips its own dependents
 * only. Nothing is enumerated up front: memory grows with the jobs in flight.
 */
import { type GraphStep, itemKeyOf, type JobGraph } from '../../workflow/index.js';
import type { ConcurrencyController } from './concurrency-controller.js';
import type { AdoptFrom, JobContext, NodeOutcome } from './job-context.js';
import { adoptNode, countReaders, resumeNode, runNode } from './job-runner.js';
import { NodeQueue } from './node-queue.js';
import { NODE } from './run-state.js';
import type { SeedNode } from '../contracts/seed-node.js';

/** What runs a node (the job runner; benchmarks swap in a no-op to measure the bookkeeping alone). */
export interface NodeRunners {
  run(ctx: JobContext, id: number): Promise<NodeOutcome>;
  resume(ctx: JobContext, id: number, requestId: string, attempt: number, cacheKey: string | null, submittedAt?: number | null): Promise<NodeOutcome>;
  /** An item an earlier session left unknown: waits for a webhook delivery naming it (job-submit.ts). */
  adopt?(ctx: JobContext, id: number, from: AdoptFrom, reason: string): Promise<NodeOutcome>;
}

const JOB_RUNNERS: NodeRunners = { run: runNode, resume: resumeNode, adopt: adoptNode };

/** Which submission of an unknown seed a delivery would name, or null when none can be named. */
function adoptable(seed: Extract<SeedNode, { state: 'unknown' }>): AdoptFrom | null {
  if (seed.from !== undefined) return { run: seed.from };
  return (seed.attempt ?? 0) > 0 ? { attempt: seed.attempt! } : null;
}

/** Jobs of an earlier run polled again between two turns of the event loop while seeding. */
const SEED_YIELD = 32;

export class Scheduler {
  private readonly queues: NodeQueue[];
  private readonly inFlight: Int32Array;
  /** Upstream nodes each node still waits for (only steps that wait for any). */
  private readonly waiting: Int32Array;
  private total = 0;
  /** Skip cascades still being recorded. */
  private cascades = 0;
  /** Gather nodes: the upstream nodes that did not succeed, so far. */
  private readonly blockers = new Map<number, number[]>();
  private pumping = false;
  /** Seeds are being applied: nothing new starts. */
  private seeding = false;
  private resolveIdle: (() => void) | undefined;

  constructor(
    private readonly ctx: JobContext,
    private readonly concurrency: ConcurrencyController,
    /** Estimator key of each step's jobs (task and model), as the job runner last used it. */
    private readonly stepKeys: ReadonlyMap<string, string>,
    private readonly runners: NodeRunners = JOB_RUNNERS,
  ) {
    const { graph } = ctx;
    this.inFlight = new Int32Array(graph.steps.length);
    this.waiting = new Int32Array(graph.nodeCount);
    this.queues = graph.steps.map((step) => {
      if (step.upstream.length === 0) return new NodeQueue(step.offset, step.offset + step.itemCount);
      const queue = new NodeQueue();
      for (let k = 0; k < step.itemCount; k++) {
        const count = graph.dependencyCount(step.id, k);
        this.waiting[step.offset + k] = count;
        if (count === 0) queue.push(step.offset + k);
      }
      return queue;
    });
  }

  /**
   * Applies states from an earlier run before anything new starts. Jobs still at the service
   * (paid for or running) come first: those of nodes that depend on nothing are polled again
   * before the other states are applied, so a resume of 10,000 items does not prepare 9,500 done
   * ones before its first poll, and the loop lets their first requests out after the 1st, 2nd,
   * 4th, … and then every {@link SEED_YIELD}th of them. Nothing new is started until every seed
   * is applied: a job that settles meanwhile must not start a node whose earlier state (done,
   * invalid) is not applied yet.
   */
  async seed(nodes: readonly SeedNode[]): Promise<void> {
    this.seeding = true;
    try {
      const early = nodes.filter((seed) => seed.state === 'submitted' && this.ctx.graph.dependencyCount(seed.step, seed.k) === 0);
      await this.applySeeds(early);
      const applied = new Set(early);
      await this.applySeeds(applied.size === 0 ? nodes : nodes.filter((seed) => !applied.has(seed)));
    } finally {
      this.seeding = false;
    }
  }

  private async applySeeds(nodes: readonly SeedNode[]): Promise<void> {
    const { graph, state } = this.ctx;
    let resumed = 0;
    for (const seed of nodes) {
      const id = graph.nodeIndex(seed.step, seed.k);
      if (seed.state === 'done') {
        this.ctx.results.put(id, seed.result, countReaders(this.ctx, id));
        state.seedDone(id, seed.result, seed.outputs, seed.doneAt, seed.adopted === true);
        this.readyDependents(id);
      } else if (seed.state === 'unknown' && adoptable(seed) !== null && this.ctx.webhooks?.adopt !== undefined && this.runners.adopt !== undefined) {
        // Its job may yet be named by a delivery (a retry of one an earlier session missed).
        const adopt = this.runners.adopt.bind(this.runners);
        const from = adoptable(seed)!;
        this.launch(id, () => adopt(this.ctx, id, from, seed.reason));
      } else if (seed.state === 'unknown') {
        state.seedUnknown(id, seed.reason);
        await this.skipDependents(id, `steps.${seed.step} item ${seed.k} is unknown`);
      } else if (seed.state === 'failed') {
        state.seedFailed(id, seed.error);
        await this.skipDependents(id, `steps.${seed.step} item ${seed.k} failed`);
      } else if (seed.state === 'invalid') {
        // Settled in an earlier session (done, failed): that stands.
        if (state.status[id] !== NODE.pending && state.status[id] !== NODE.ready) continue;
        await state.skipped(id, seed.reason, 'invalid');
        await this.skipDependents(id, `steps.${seed.step} item ${seed.k} was left out (invalid input)`);
      } else if (seed.state === 'unsaved') {
        state.seedUnsaved(id, seed.requestId, seed.error);
        await this.skipDependents(id, `steps.${seed.step} item ${seed.k} was paid for but its result is lost`);
      } else if (seed.paid !== undefined && !this.upstreamDone(id)) {
        // Paid for, carried into a new run whose upstream results are not in yet: fetched once they are.
        state.seedPaid(id, seed.requestId);
      } else {
        state.seedSubmitted(id, seed.attempt, seed.requestId, seed.paid !== undefined, seed.adopted === true);
        this.launch(id, () => this.runners.resume(this.ctx, id, seed.requestId, seed.attempt, seed.cacheKey ?? null, seed.submittedAt ?? null));
        // Turns after the 1st, 2nd, 4th, … 32nd and then every 32nd: the first request goes out
        // (its connection opens, then it is written) while the others are still being prepared.
        resumed++;
        if (resumed % SEED_YIELD === 0 || (resumed < SEED_YIELD && (resumed & (resumed - 1)) === 0)) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  private upstreamDone(id: number): boolean {
    const { graph, state } = this.ctx;
    const { step, k } = graph.nodeAt(id);
    for (const node of graph.dependencies(step.id, k)) if (state.status[node.step.offset + node.k] !== NODE.done) return false;
    return true;
  }

  /**
   * Submission order of each step that waits for nothing, from `order` (longest-first.ts): a
   * step it returns ids for is started in that order instead of file order. Call before run().
   */
  async orderRoots(order: (step: GraphStep) => Promise<number[] | undefined>): Promise<void> {
    for (const step of this.ctx.graph.steps) {
      if (step.upstream.length > 0) continue;
      const ids = await order(step);
      if (ids === undefined) continue;
      const queue = new NodeQueue();
      for (const id of ids) queue.push(id);
      this.queues[step.order] = queue;
    }
  }

  /** Runs until every node has finished, or the run stopped and its jobs in flight settled. */
  run(): Promise<void> {
    const idle = new Promise<void>((resolve) => {
      this.resolveIdle = resolve;
    });
    this.ctx.control.onStop(() => this.pump());
    this.concurrency.onChange(() => this.pump());
    this.pump();
    return idle;
  }

  /** Jobs in flight now. */
  get running(): number {
    return this.total;
  }

  private pump(): void {
    if (this.pumping || this.seeding) return;
    this.pumping = true;
    try {
      while (!this.ctx.control.stopping && this.total < this.concurrency.global) {
        const id = this.pick();
        if (id < 0) break;
        this.launch(id, () => this.runners.run(this.ctx, id));
      }
    } finally {
      this.pumping = false;
    }
    if (this.total === 0 && this.cascades === 0 && (this.ctx.control.stopping || !this.hasReady())) this.resolveIdle?.();
  }

  /** The next node to start: the latest step with a ready node and a free slot. */
  private pick(): number {
    const { steps } = this.ctx.graph;
    for (let s = steps.length - 1; s >= 0; s--) {
      const queue = this.queues[s]!;
      if (queue.length === 0 || this.inFlight[s]! >= this.limit(steps[s]!)) continue;
      for (let id = queue.shift(); id >= 0; id = queue.shift()) {
        const status = this.ctx.state.status[id];
        if (status === NODE.pending || status === NODE.ready) return id;
      }
    }
    return -1;
  }

  private limit(step: GraphStep): number {
    const key = this.stepKeys.get(step.id) ?? `${step.task.id}\u0000`;
    return this.concurrency.stepLimit(step.task.pool, step.def.concurrency, this.ctx.estimator.typicalMs(key, step.task.resultKind));
  }

  private hasReady(): boolean {
    return this.queues.some((queue) => queue.length > 0);
  }

  private launch(id: number, work: () => Promise<NodeOutcome>): void {
    const s = this.ctx.graph.nodeAt(id).step.order;
    if (this.ctx.state.status[id] !== NODE.running) this.ctx.state.start(id);
    this.inFlight[s]!++;
    this.total++;
    work().then(
      (outcome) => this.settle(id, s, outcome),
      (error: unknown) => {
        // A state change that could not be recorded: stop, and let the jobs in flight settle.
        this.ctx.control.stop('fatal', error);
        this.settle(id, s, 'abandoned');
      },
    );
  }

  private settle(id: number, s: number, outcome: NodeOutcome): void {
    this.inFlight[s]!--;
    this.total--;
    if (outcome === 'done') {
      this.releaseUpstream(id);
      this.readyDependents(id);
    } else if (outcome === 'deferred') {
      // Waits for its pool's daily window: its dependents stay pending for a later run.
      this.releaseUpstream(id);
    } else if (outcome === 'failed' || outcome === 'unknown' || outcome === 'skipped' || outcome === 'timed-out') {
      this.releaseUpstream(id);
      const { step, k } = this.ctx.graph.nodeAt(id);
      const why = outcome === 'skipped' ? 'was skipped' : outcome === 'failed' ? 'failed' : outcome === 'timed-out' ? 'timed out (a later run collects it)' : 'is unknown';
      this.cascade(() => this.skipDependents(id, `steps.${step.id}${step.fansOut ? ` item ${k}` : ''} ${why}`));
    }
    this.pump();
  }

  private readyDependents(id: number): void {
    const { graph, state } = this.ctx;
    const { step, k } = graph.nodeAt(id);
    for (const dependent of graph.dependents(step.id, k)) {
      const d = dependent.step.offset + dependent.k;
      if (state.status[d] !== NODE.pending) continue;
      if (--this.waiting[d]! === 0) this.arrived(d);
    }
  }

  /** Every node `d` waits for has settled: it is ready, unless it gathers items that did not succeed. */
  private arrived(d: number): void {
    const { graph, state } = this.ctx;
    const blockers = this.blockers.get(d);
    const { step } = graph.nodeAt(d);
    if (blockers === undefined) {
      state.ready(d);
      this.queues[step.order]!.push(d);
      return;
    }
    this.blockers.delete(d);
    const gathered = step.upstream.reduce((n, edge) => n + (edge.kind === 'all' ? graph.step(edge.from).itemCount : 0), 0);
    if (step.def.gather === 'partial' && blockers.length < gathered) {
      // `gather: partial`: runs over the items that succeeded; the scope names the others in `missing`.
      state.ready(d);
      this.queues[step.order]!.push(d);
      return;
    }
    const reason =
      step.def.gather === 'partial'
        ? `no item of ${describeBlockers(graph, blockers)} succeeded`
        : `it gathers every item, and ${describeBlockers(graph, blockers)} did not succeed (gather: partial would run over the others)`;
    this.cascade(async () => {
      await state.skipped(d, reason);
      this.releaseUpstream(d);
      await this.skipDependents(d, `steps.${step.id}${step.fansOut ? ` item ${graph.nodeAt(d).k}` : ''} was skipped`);
    });
  }

  /** Runs a skip cascade while the scheduler keeps going; the run waits for it before it ends. */
  private cascade(work: () => Promise<void>): void {
    this.cascades++;
    work().then(
      () => {
        this.cascades--;
        this.pump();
      },
      (error: unknown) => {
        this.cascades--;
        this.ctx.control.stop('fatal', error);
        this.pump();
      },
    );
  }

  /**
   * Skips every node downstream of `id` that has not started. A gather (an `all` edge) is not
   * skipped at once: it notes the item as missing and decides once every item it gathers has
   * settled (so its report names every item that blocked it, and `gather: partial` runs).
   */
  private async skipDependents(id: number, reason: string): Promise<void> {
    const { graph, state } = this.ctx;
    const stack = [id];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const { step, k } = graph.nodeAt(current);
      for (const edge of step.downstream) {
        const to = graph.step(edge.to);
        const first = edge.kind === 'item' ? k : 0;
        const last = edge.kind === 'item' ? Math.min(k + 1, to.itemCount) : to.itemCount;
        for (let j = first; j < last; j++) {
          const d = to.offset + j;
          const status = state.status[d];
          if (status !== NODE.pending && status !== NODE.ready) continue;
          if (edge.kind === 'all' && status === NODE.pending) {
            const blockers = this.blockers.get(d) ?? [];
            blockers.push(current);
            this.blockers.set(d, blockers);
            if (--this.waiting[d]! === 0) this.arrived(d);
            continue;
          }
          await state.skipped(d, current === id ? reason : `steps.${step.id}${step.fansOut ? ` item ${k}` : ''} was skipped`);
          this.releaseUpstream(d);
          stack.push(d);
        }
      }
    }
  }

  private releaseUpstream(id: number): void {
    const { graph } = this.ctx;
    const { step, k } = graph.nodeAt(id);
    for (const up of graph.dependencies(step.id, k)) this.ctx.results.release(up.step.offset + up.k);
  }
}

/** `steps.transcribe items 3 (a.mp3), 7 (b.mp3)`: the items that did not succeed, the first few by key. */
function describeBlockers(graph: JobGraph, blockers: readonly number[]): string {
  const sorted = [...blockers].sort((a, b) => a - b);
  const byStep = new Map<string, string[]>();
  for (const id of sorted) {
    const { step, k } = graph.nodeAt(id);
    const list = byStep.get(step.id) ?? [];
    if (list.length < 10) list.push(step.fansOut ? `${k} (${itemKeyOf(step, k)})` : '');
    else if (list.length === 10) list.push('…');
    byStep.set(step.id, list);
  }
  return [...byStep].map(([id, list]) => {
    const count = sorted.filter((b) => graph.nodeAt(b).step.id === id).length;
    const shown = list.filter((x) => x !== '');
    return shown.length === 0 ? `steps.${id}` : `steps.${id} item${count === 1 ? '' : 's'} ${shown.join(', ')}`;
  }).join(' and ');
}
