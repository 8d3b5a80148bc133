/**
 * The journal of a node in queue mode is its BullMQ job. The intent goes into the job's
 * data before the POST and the `request_id` as soon as it arrives, each written only while
 * this worker still holds the job's lock (one Lua call): a worker that lost its lock (it
 * stalled, and another took the job over) can no longer submit for it. How the node ended is
 * kept for the job's return value. The run's state (shared by the jobs of a run in this
 * worker) calls one recorder per run; it hands each call to the recorder of the node's job.
 */
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { DeflowError } from '../../common/index.js';
import type { EventError, RunStatus } from '../contracts/events.js';
import type { RecordedDone, RecordedNode, StateRecorder } from '../run/index.js';
import type { NodeJobData, NodeJobProgress, NodeJobResult } from './node-job.js';
import { BULL_PREFIX } from './queue-names.js';

const LOCKED_UPDATE = `
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('HSET', KEYS[1], 'data', ARGV[2])
  return 1
end
return 0
`;

interface LockedRedis {
  deflowLockedUpdate(jobKey: string, lockKey: string, token: string, data: string): Promise<number>;
}

/** Registers the script on a connection (once). */
export function defineLockedUpdate(redis: Redis): void {
  if (!(redis as unknown as Partial<LockedRedis>).deflowLockedUpdate) redis.defineCommand('deflowLockedUpdate', { numberOfKeys: 2, lua: LOCKED_UPDATE });
}

/** Records one node's transitions into its job. */
export class JobRecorder {
  /** How the node ended, once it has. */
  result: NodeJobResult | undefined;
  /** Redis calls made. */
  calls = 0;
  /** What the job cost, once the service said it is done (kept in memory: its request id is in the data already). */
  paidCost: number | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly job: Job<NodeJobData>,
    private readonly token: string,
  ) {}

  async intent(attempt: number, digest: string, cacheKey: string | null): Promise<void> {
    await this.write({ ...this.job.data, intent: { attempt, digest, cacheKey }, ...(cacheKey === null ? {} : { cacheKey }) });
  }

  async withdrawn(): Promise<void> {
    const { intent: _intent, ...rest } = this.job.data;
    await this.write(rest);
  }

  async submitted(attempt: number, requestId: string): Promise<void> {
    await this.write({ ...this.job.data, requestId, attempt });
    this.progress({ t: 'submitted', attempt, requestId });
  }

  async retrying(attempt: number, error: EventError): Promise<void> {
    // The next attempt writes its own intent; until then a lost worker's replacement submits it.
    const { intent: _intent, requestId: _requestId, ...rest } = this.job.data;
    await this.write({ ...rest, attempt });
    this.progress({ t: 'retry', attempt, error });
  }

  get data(): NodeJobData {
    return this.job.data;
  }

  private async write(data: NodeJobData): Promise<void> {
    const jobKey = `${BULL_PREFIX}:${this.job.queueName}:${this.job.id}`;
    this.calls++;
    const ok = await (this.redis as unknown as LockedRedis).deflowLockedUpdate(jobKey, `${jobKey}:lock`, this.token, JSON.stringify(data));
    if (ok !== 1) {
      throw new DeflowError('E_QUEUE_LOCK_LOST', `job ${this.job.id}: this worker lost the job's lock (another worker took it over); it stops working on it`, {
        details: { job: this.job.id },
      });
    }
    this.job.data = data;
  }

  private progress(progress: NodeJobProgress): void {
    this.calls++;
    // Only for the coordinator's report: the data above is what counts.
    this.job.updateProgress(progress).catch(() => {});
  }
}

/** The run state's recorder in a worker: each node's calls go to its job's recorder. */
export class DispatchRecorder implements StateRecorder {
  private readonly jobs = new Map<number, JobRecorder>();

  attach(id: number, recorder: JobRecorder): void {
    this.jobs.set(id, recorder);
  }

  detach(id: number): void {
    this.jobs.delete(id);
  }

  private of(node: RecordedNode): JobRecorder {
    const recorder = this.jobs.get(node.id);
    if (recorder === undefined) throw new DeflowError('E_INTERNAL', `no job is attached to node ${node.step}[${node.index}]`);
    return recorder;
  }

  intent(node: RecordedNode, attempt: number, paramsDigest: string, cacheKey: string | null): Promise<void> {
    return this.of(node).intent(attempt, paramsDigest, cacheKey);
  }

  withdrawn(node: RecordedNode): Promise<void> {
    return this.of(node).withdrawn();
  }

  submitted(node: RecordedNode, attempt: number, requestId: string): Promise<void> {
    return this.of(node).submitted(attempt, requestId);
  }

  async progress(): Promise<void> {}

  /** The job's request id is in its data already: a worker that takes it over polls it, never submits. */
  async paid(node: RecordedNode, _requestId: string, _resultUrl: string | null, cost: number | null): Promise<void> {
    this.of(node).paidCost = cost;
  }

  /** Paid, not saved: returned as such, so that a later session fetches the result again by its request id. */
  async unsaved(node: RecordedNode, requestId: string, error: EventError): Promise<void> {
    const recorder = this.of(node);
    recorder.result = { outcome: 'unsaved', error, requestId, cost: recorder.paidCost ?? recorder.data.paid?.cost ?? null };
  }

  async done(node: RecordedNode, done: RecordedDone): Promise<void> {
    this.of(node).result = { outcome: 'done', result: done.result, outputs: done.outputs, cached: done.cached, cacheKey: done.cacheKey };
  }

  retrying(node: RecordedNode, attempt: number, error: EventError): Promise<void> {
    return this.of(node).retrying(attempt, error);
  }

  async failed(node: RecordedNode, error: EventError, retryable: boolean): Promise<void> {
    this.of(node).result = { outcome: 'failed', error, retryable };
  }

  async skipped(node: RecordedNode, reason: string): Promise<void> {
    this.of(node).result = { outcome: 'skipped', reason };
  }

  async unknown(node: RecordedNode, reason: string): Promise<void> {
    this.of(node).result = { outcome: 'unknown', reason };
  }

  async timedOut(node: RecordedNode, requestId: string, error: EventError): Promise<void> {
    this.of(node).result = { outcome: 'timed-out', error, requestId };
  }

  /** Not reached: a worker's jobs stop on a daily limit and go back to the queue, delayed until it refills (queue-worker.ts). */
  async deferred(): Promise<void> {}

  async finished(_status: RunStatus): Promise<void> {}
}
