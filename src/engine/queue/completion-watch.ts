/**
 * How the coordinator learns that a node's job finished: BullMQ's event stream of each pool's
 * queue (read from the position it had when the coordinator started, so nothing between the
 * start and the first read is missed), and, because events are not a durable channel, a
 * look at the job itself when it is first awaited and every half minute after.
 */
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { NodeJobData, NodeJobProgress, NodeJobResult } from './node-job.js';
import { BULL_PREFIX } from './queue-names.js';
import { redisOptions } from './redis-connection.js';
import type { RedisTarget } from './redis-url.js';

/** How a job finished, as the coordinator sees it. */
export type JobFinish =
  | { readonly kind: 'completed'; readonly result: NodeJobResult }
  /** The processor threw (not a node failure: a worker could not run it). */
  | { readonly kind: 'failed'; readonly reason: string; readonly data: NodeJobData | undefined; readonly attemptsMade: number };

interface Pending {
  readonly queue: string;
  resolve(finish: JobFinish): void;
}

/** Real ms between looks at jobs whose end no event has announced. */
const SWEEP_MS = 30_000;

export class CompletionWatch {
  private readonly events = new Map<string, QueueEvents>();
  private readonly queues = new Map<string, Queue>();
  private readonly pending = new Map<string, Pending>();
  private readonly sweeper: NodeJS.Timeout;
  /** Redis calls made by explicit looks at jobs. */
  lookups = 0;

  constructor(
    private readonly target: RedisTarget,
    private readonly redis: Redis,
    /** Only jobs whose id starts with this (`runId:`). */
    private readonly idPrefix: string,
    private readonly onProgress: (jobId: string, progress: NodeJobProgress) => void,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Starts reading the event stream of `queueName` from its current end. */
  async watch(queueName: string): Promise<Queue> {
    const known = this.queues.get(queueName);
    if (known !== undefined) return known;
    const last = (await this.redis.xrevrange(`${BULL_PREFIX}:${queueName}:events`, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    const events = new QueueEvents(queueName, { connection: redisOptions(this.target, true), prefix: BULL_PREFIX, lastEventId: last });
    events.on('completed', ({ jobId, returnvalue }) => this.finish(jobId, { kind: 'completed', result: returnvalue as unknown as NodeJobResult }));
    events.on('failed', ({ jobId }) => void this.lookAt(queueName, jobId));
    events.on('progress', ({ jobId, data }) => {
      if (jobId.startsWith(this.idPrefix) && typeof data === 'object' && data !== null) this.onProgress(jobId, data as NodeJobProgress);
    });
    events.on('error', () => {});
    const queue = new Queue(queueName, { connection: redisOptions(this.target, false), prefix: BULL_PREFIX });
    this.events.set(queueName, events);
    this.queues.set(queueName, queue);
    await events.waitUntilReady();
    return queue;
  }

  /** Resolves when job `jobId` of `queueName` finishes. Register before adding the job. */
  expect(queueName: string, jobId: string): Promise<JobFinish> {
    return new Promise<JobFinish>((resolve) => {
      this.pending.set(jobId, { queue: queueName, resolve });
    });
  }

  /** Stops waiting for a job (the coordinator gave it up). */
  forget(jobId: string): void {
    this.pending.delete(jobId);
  }

  /** Looks at the job now: finished jobs resolve their waiter. Returns the job, if it exists. */
  async lookAt(queueName: string, jobId: string): Promise<Job<NodeJobData, NodeJobResult> | undefined> {
    if (!jobId.startsWith(this.idPrefix)) return undefined;
    const queue = this.queues.get(queueName);
    if (queue === undefined) return undefined;
    this.lookups++;
    const job = await Job.fromId<NodeJobData, NodeJobResult>(queue, jobId);
    if (job === undefined) return undefined;
    if (job.finishedOn !== undefined && job.failedReason === undefined && job.returnvalue !== null && job.returnvalue !== undefined) {
      this.finish(jobId, { kind: 'completed', result: job.returnvalue });
    } else if (job.finishedOn !== undefined && job.failedReason !== undefined) {
      this.finish(jobId, { kind: 'failed', reason: job.failedReason, data: job.data, attemptsMade: job.attemptsMade });
    }
    return job;
  }

  private finish(jobId: string, finish: JobFinish): void {
    const pending = this.pending.get(jobId);
    if (pending === undefined) return;
    this.pending.delete(jobId);
    pending.resolve(finish);
  }

  private async sweep(): Promise<void> {
    for (const [jobId, pending] of [...this.pending]) {
      await this.lookAt(pending.queue, jobId).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.events.values()].map((events) => events.close().catch(() => {})));
    await Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => {})));
  }
}
