/**
 * Connections to the Redis of `--queue` and `--governor`. A connection that cannot be made
 * within a few seconds is an error naming the URL (without its password) and what to check,
 * instead of ioredis retrying forever in silence.
 */
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { DeflowError } from '../../common/index.js';
import type { RedisTarget } from './redis-url.js';

/** How long a first connection may take. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface OpenRedisOptions {
  /** BullMQ's blocking connections must never fail a command on their own. @default false */
  readonly blocking?: boolean;
  /** What the connection is for, in messages. */
  readonly purpose?: string;
}

/** Opens a connection and waits until it is ready. @throws DeflowError `E_QUEUE_CONNECT` */
export async function openRedis(target: RedisTarget, options: OpenRedisOptions = {}): Promise<Redis> {
  const redis = new Redis({ ...redisOptions(target, options.blocking ?? false), lazyConnect: true });
  let lastError: unknown;
  const onError = (error: unknown): void => {
    lastError = error;
  };
  redis.on('error', onError);
  const timer = setTimeout(() => redis.disconnect(), CONNECT_TIMEOUT_MS);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw connectError(target, options.purpose, lastError ?? error);
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

/** ioredis options for BullMQ (which opens its own connections from them). */
export function redisOptions(target: RedisTarget, blocking: boolean): BullRedisOptions {
  return {
    ...target.options,
    // BullMQ requires null on blocking connections; a command on a lost connection waits for it to come back.
    maxRetriesPerRequest: blocking ? null : 20,
    enableReadyCheck: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

function connectError(target: RedisTarget, purpose: string | undefined, cause: unknown): DeflowError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DeflowError(
    'E_QUEUE_CONNECT',
    `${target.display}: cannot connect to Redis${purpose === undefined ? '' : ` (${purpose})`}: ${reason}; is redis-server running there (apt-get install -y redis-server)?`,
    { cause, details: { url: target.display } },
  );
}
