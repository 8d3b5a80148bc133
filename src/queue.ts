/**
 * `deflow/queue`: distributed mode (BullMQ and Redis) for library users: a coordinator that
 * enqueues a run's jobs (`openQueueRun`, `runQueued`), workers (`startQueueWorker`), the shared
 * rate governor (`openSharedGovernor`) and the queue's status. Apart from the main entry
 * (`deflow`) so that its types, which name bullmq's and ioredis', are only read by a program
 * that imports this; and so that importing `deflow` never loads the Redis client.
 */
export * from './engine/distributed.js';
