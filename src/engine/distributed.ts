/**
 * The engine's second public face: distributed mode (BullMQ and Redis). Kept apart from
 * `index.ts` so that commands without `--queue`, `--governor` or `worker` never load the Redis
 * client; the CLI imports it with `import()`, the library publishes it as `deflow/queue`.
 */
export * from './queue/index.js';
export { DEFAULT_QUEUE_DEPTH, openQueueRun, runQueued } from './queue-coordinator.js';
export type { OpenedQueueRun, QueueOutcome, QueueRunOptions } from './queue-coordinator.js';
