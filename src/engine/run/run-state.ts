/**
 * The one place a node changes state. Each transition updates the compact per-node record,
 * awaits the state recorder (the journal, docs/running.md#the-journal) and then emits the run event, so what
 * reports show has always been recorded first. Per-node data lives in typed arrays indexed
 * by the graph's global node index: a 100,000-item run costs a few bytes per item here.
 */
import type { Clock } from '../../common/index.js';
import type { JobGraph } from '../../workflow/index.js';
import type { EventError, NodeRef, RunEventSink, SkipKind } from '../contracts/events.js';
import type { NodeResult } from '../contracts/node-result.js';
import { itemKey } from '../../workflow/index.js';
import { NO_RECORDER, type RecordedNode, type StateRecorder } from '../contracts/state-recorder.js';

/** Node states, as stored in {@link RunState.status}. */
export const NODE = {
  /** Waiting for its upstream nodes (or not yet pulled). */
  pending: 0,
  /** Its upstream is done; queued for a slot. */
  ready: 1,
  /** Started: resolving, submitting, polling or fetching its result. */
  running: 2,
  done: 3,
  failed: 4,
  skipped: 5,
  unknown: 6,
  /** Not submitted: its pool's daily window is used up; a later run submits it. */
  deferred: 7,
  /** Its job ran past the step's timeout and still runs at the service: a later run adopts it. */
  timedOut: 8,
} as const;

export type NodeStatusCode = (typeof NODE)[keyof typeof NODE];

/** How a node finished, for {@link RunState.done}. */
export interface DoneInfo {
  readonly result: NodeResult;
  /** Files written, relative to the workflow folder. */
  readonly outputs: readonly string[];
  readonly cached: boolean;
  readonly cacheKey: string | null;
}

/** Totals of finished nodes. */
export interface RunCounts {
  done: number;
  cached: number;
  failed: number;
  /** Failed nodes whose job was paid for, their result not saved (also counted in `failed`). */
  unsaved: number;
  skipped: number;
  unknown: number;
  /** Jobs that ran past their step's timeout, still running at the service (a later run adopts them). */
  timedOut: number;
  /** Left for a later run by a daily limit (not finished: part of `pending`). */
  deferred: number;
  /** Skipped because their inputs failed the load-time checks (part of `skipped`). */
  invalid: number;
}

export class RunState {
  readonly status: Uint8Array;
  /** Submissions made per node (saturates at 255). */
  readonly attempts: Uint8Array;
  /** Clock ms of the node's first submission (or of its cache hit); NaN before. */
  readonly startedAt: Float64Array;
  /** Quoted price per node in USD (what reports compare against); NaN when not quoted. */
  readonly quoted: Float64Array;
  readonly counts: RunCounts = { done: 0, cached: 0, failed: 0, unsaved: 0, skipped: 0, unknown: 0, timedOut: 0, deferred: 0, invalid: 0 };
  /** Jobs the service accepted in this run. */
  accepted = 0;
  /** Of those, jobs whose submission answer was lost, adopted through a webhook delivery naming the item. */
  adopted = 0;
  /** Whether a recorder listens (a journal): otherwise what only it would read is not computed. */
  readonly recording: boolean;
  /** Request ids of jobs in flight (removed when they finish). */
  private readonly requestIds = new Map<number, string>();
  private readonly live = new Map<number, RecordedNode>();
  /** Nodes whose job is done and paid for (journalled `paid`): never submitted again. */
  private readonly paidIds = new Set<number>();
  private progressError: unknown;

  constructor(
    readonly graph: JobGraph,
    private readonly sink: RunEventSink,
    private readonly recorder: StateRecorder,
    private readonly clock: Clock,
  ) {
    this.recording = recorder !== NO_RECORDER;
    const n = graph.nodeCount;
    this.status = new Uint8Array(n);
    this.attempts = new Uint8Array(n);
    this.startedAt = new Float64Array(n).fill(Number.NaN);
    this.quoted = new Float64Array(n).fill(Number.NaN);
  }

  /** The node as events and the recorder name it (kept while it runs: it is named many times). */
  node(id: number): RecordedNode {
    const known = this.live.get(id);
    if (known !== undefined) return known;
    const { step, k } = this.graph.nodeAt(id);
    const node = { id, step: step.id, index: k, key: itemKey(step, k) };
    if (this.status[id] === NODE.running) this.live.set(id, node);
    return node;
  }

  requestIdOf(id: number): string | null {
    return this.requestIds.get(id) ?? null;
  }

  quotedOf(id: number): number | null {
    const value = this.quoted[id]!;
    return Number.isNaN(value) ? null : value;
  }

  ready(id: number): void {
    this.status[id] = NODE.ready;
    this.sink({ type: 'item-queued', ts: this.clock.now(), node: strip(this.node(id)) });
  }

  /** Started by the scheduler (nothing is recorded until the intent). */
  start(id: number): void {
    this.status[id] = NODE.running;
  }

  /** A started node that was never submitted goes back to wait for the next run (budget, stop). */
  unstart(id: number): void {
    if (this.status[id] === NODE.running && !this.requestIds.has(id)) this.status[id] = NODE.pending;
    this.live.delete(id);
  }

  async intent(id: number, attempt: number, paramsDigest: string, cacheKey: string | null): Promise<void> {
    await this.recorder.intent(this.node(id), attempt, paramsDigest, cacheKey);
  }

  async withdrawn(id: number, attempt: number, reason: string): Promise<void> {
    await this.recorder.withdrawn(this.node(id), attempt, reason);
  }

  async submitted(id: number, attempt: number, requestId: string, adopted = false): Promise<void> {
    this.requestIds.set(id, requestId);
    this.attempts[id] = Math.min(255, attempt);
    this.accepted++;
    if (adopted) this.adopted++;
    const node = this.node(id);
    await this.recorder.submitted(node, attempt, requestId, adopted);
    const ts = this.clock.now();
    if (Number.isNaN(this.startedAt[id]!)) this.startedAt[id] = ts;
    this.sink({ type: 'item-submitted', ts, node: strip(node), requestId, attempt, quotedCost: this.quotedOf(id), ...(adopted ? { adopted: true as const } : {}) });
  }

  /** A poll's answer; recorded without waiting (a status line is not worth delaying a poll). */
  progress(id: number, status: string, progress: number | null): void {
    const node = this.node(id);
    this.recorder.progress(node, status, progress).catch((error: unknown) => {
      this.progressError ??= error;
    });
    this.sink({ type: 'item-progress', ts: this.clock.now(), node: strip(node), progress: progress ?? 0, status });
  }

  /** The job is done at the service; its result is read or downloaded next. */
  downloading(id: number, requestId: string): void {
    this.sink({ type: 'item-downloading', ts: this.clock.now(), node: strip(this.node(id)), requestId });
  }

  /**
   * A timed-out job is polled again (a retry of a timed-out item: the same job, never a new
   * submission while it may still finish). Nothing is journalled: the job stays `submitted`.
   */
  retryingSameJob(id: number, attempt: number, requestId: string, error: EventError): void {
    this.sink({ type: 'item-retry', ts: this.clock.now(), node: strip(this.node(id)), attempt, error, requestId });
  }

  /** The job ran past its step's timeout (and retries): it still runs at the service, a later run adopts it. */
  async timedOut(id: number, requestId: string, error: EventError): Promise<void> {
    const node = this.node(id);
    await this.recorder.timedOut(node, requestId, error);
    this.requestIds.delete(id);
    this.end(id, NODE.timedOut, 'timedOut');
    this.sink({ type: 'item-timed-out', ts: this.clock.now(), node: strip(node), requestId, error, startedAt: this.startedOrNull(id) });
  }

  async retrying(id: number, attempt: number, error: EventError): Promise<void> {
    this.requestIds.delete(id);
    const node = this.node(id);
    await this.recorder.retrying(node, attempt, error);
    this.sink({ type: 'item-retry', ts: this.clock.now(), node: strip(node), attempt, error });
  }

  async done(id: number, info: DoneInfo): Promise<void> {
    const node = this.node(id);
    const requestId = info.result.requestId;
    const cost = info.cached ? 0 : info.result.cost;
    await this.recorder.done(node, { requestId, cost, result: info.result, outputs: info.outputs, cacheKey: info.cacheKey, cached: info.cached });
    this.requestIds.delete(id);
    this.end(id, NODE.done, 'done');
    if (info.cached) this.counts.cached++;
    const ts = this.clock.now();
    if (Number.isNaN(this.startedAt[id]!)) this.startedAt[id] = ts;
    this.sink({
      type: 'item-done',
      ts,
      node: strip(node),
      requestId,
      cost: cost ?? 0,
      quotedCost: this.quotedOf(id),
      cached: info.cached,
      outputs: info.outputs,
      startedAt: this.startedAt[id]!,
    });
  }

  /** Whether node `id`'s job was paid for (in this session or an earlier one). */
  isPaid(id: number): boolean {
    return this.paidIds.has(id);
  }

  /** The job is done on the service, so paid for: recorded before its result is fetched. */
  async paid(id: number, requestId: string, resultUrl: string | null, cost: number | null): Promise<void> {
    await this.recorder.paid(this.node(id), requestId, resultUrl, cost);
    this.paidIds.add(id);
  }

  /**
   * Paid, not saved: the result of a paid job could not be fetched or written. The node ends
   * failed (its dependents are skipped), with `unsaved` in its event; a re-run fetches again.
   */
  async unsaved(id: number, requestId: string, error: EventError, cost: number | null): Promise<void> {
    const node = this.node(id);
    await this.recorder.unsaved(node, requestId, error);
    this.requestIds.delete(id);
    this.end(id, NODE.failed, 'failed');
    this.counts.unsaved++;
    this.sink({ type: 'item-failed', ts: this.clock.now(), node: strip(node), requestId, error, startedAt: this.startedOrNull(id), unsaved: { cost: cost ?? 0 } });
  }

  async failed(id: number, error: EventError, retryable: boolean): Promise<void> {
    const node = this.node(id);
    await this.recorder.failed(node, error, retryable);
    const requestId = this.requestIds.get(id) ?? null;
    this.requestIds.delete(id);
    this.end(id, NODE.failed, 'failed');
    this.sink({ type: 'item-failed', ts: this.clock.now(), node: strip(node), requestId, error, startedAt: this.startedOrNull(id) });
  }

  async skipped(id: number, reason: string, kind: SkipKind = 'upstream'): Promise<void> {
    this.end(id, NODE.skipped, 'skipped');
    if (kind === 'invalid') this.counts.invalid++;
    const node = this.node(id);
    await this.recorder.skipped(node, reason);
    this.sink({ type: 'item-skipped', ts: this.clock.now(), node: strip(node), reason, kind });
  }

  /** Not submitted because `pool`'s daily window is used up until `resetAt` (clock ms, null when unknown). */
  async deferred(id: number, pool: string, resetAt: number | null): Promise<void> {
    this.requestIds.delete(id);
    this.end(id, NODE.deferred, 'deferred');
    const node = this.node(id);
    await this.recorder.deferred(node, pool, resetAt);
    this.sink({ type: 'item-deferred', ts: this.clock.now(), node: strip(node), pool, resetAt });
  }

  async unknown(id: number, reason: string): Promise<void> {
    const node = this.node(id);
    await this.recorder.unknown(node, reason);
    this.requestIds.delete(id);
    this.end(id, NODE.unknown, 'unknown');
    this.sink({ type: 'item-unknown', ts: this.clock.now(), node: strip(node), reason });
  }

  /**
   * A node done in an earlier session of the run (resume): shown with what it cost then (so
   * reports add up over every session), not recorded again. `doneAt`: when it was done.
   */
  seedDone(id: number, result: NodeResult, outputs: readonly string[], doneAt?: number, adopted = false): void {
    this.end(id, NODE.done, 'done');
    const ts = doneAt ?? this.clock.now();
    const node = strip(this.node(id));
    this.sink({ type: 'item-done', ts, node, requestId: result.requestId, cost: result.cost ?? 0, quotedCost: this.quotedOf(id), cached: false, earlier: true, outputs, startedAt: ts, ...(adopted ? { adopted: true as const } : {}) });
  }

  /** A job submitted by an earlier run, still to be polled (`paid`: done and paid for, its result to fetch again). */
  seedSubmitted(id: number, attempt: number, requestId: string, paid = false, adopted = false): void {
    if (paid) this.paidIds.add(id);
    this.status[id] = NODE.running;
    this.requestIds.set(id, requestId);
    this.attempts[id] = Math.min(255, attempt);
    this.sink({ type: 'item-submitted', ts: this.clock.now(), node: strip(this.node(id)), requestId, attempt, quotedCost: this.quotedOf(id), ...(adopted ? { adopted: true as const } : {}) });
  }

  /** A node that failed for good in an earlier session (not retryable): not run again. */
  seedFailed(id: number, error: EventError): void {
    this.end(id, NODE.failed, 'failed');
    this.sink({ type: 'item-failed', ts: this.clock.now(), node: strip(this.node(id)), requestId: null, error, startedAt: null });
  }

  /** Paid in an earlier run, waiting for its upstream results: the job runner fetches its result once they are in. */
  seedPaid(id: number, requestId: string): void {
    this.paidIds.add(id);
    this.requestIds.set(id, requestId);
  }

  /** Paid in an earlier session, its result lost for good (the job is gone): reported, never fetched or paid again. */
  seedUnsaved(id: number, requestId: string, error: EventError): void {
    this.paidIds.add(id);
    this.end(id, NODE.failed, 'failed');
    this.counts.unsaved++;
    this.sink({ type: 'item-failed', ts: this.clock.now(), node: strip(this.node(id)), requestId, error, startedAt: null, unsaved: { cost: 0, earlier: true } });
  }

  seedUnknown(id: number, reason: string): void {
    this.end(id, NODE.unknown, 'unknown');
    this.sink({ type: 'item-unknown', ts: this.clock.now(), node: strip(this.node(id)), reason });
  }

  /** Node `id` ends with `status`, counted under `count`. */
  private end(id: number, status: NodeStatusCode, count: keyof RunCounts): void {
    this.status[id] = status;
    this.live.delete(id);
    this.counts[count]++;
  }

  /** When node `id` started, or null when it never did. */
  private startedOrNull(id: number): number | null {
    const started = this.startedAt[id]!;
    return Number.isNaN(started) ? null : started;
  }

  /** Throws the first recorder failure of a `progress` hook, if any. */
  checkRecorder(): void {
    if (this.progressError !== undefined) throw this.progressError;
  }

  /** Nodes submitted and not finished (a run that stopped leaves them running on the service). */
  get running(): number {
    let running = 0;
    for (let id = 0; id < this.status.length; id++) if (this.status[id] === NODE.running) running++;
    return running;
  }

  /** Nodes not finished: never started, queued or still running. */
  get pending(): number {
    const c = this.counts;
    return this.graph.nodeCount - c.done - c.failed - c.skipped - c.unknown - c.timedOut;
  }
}

/** The event form of a node (no graph index). */
function strip(node: RecordedNode): NodeRef {
  return { step: node.step, index: node.index, key: node.key };
}
