/**
 * `--governor redis://…`: a rate governor whose buckets are shared through Redis by every
 * deflow process that spends the same account (independent runs of a CI matrix, or the
 * workers of a queue run). Opens its two connections (commands, and pub/sub) and closes them.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../../common/index.js';
import { accountPrefix } from './account-scope.js';
import { openRedis } from './redis-connection.js';
import { RedisGovernor } from './redis-governor.js';
import type { RedisTarget } from './redis-url.js';

export interface SharedGovernor {
  readonly governor: RedisGovernor;
  /** The command connection (the queue reuses it). */
  readonly redis: Redis;
  close(): Promise<void>;
}

export interface OpenGovernorOptions {
  /** {@link accountScope} of the account. */
  readonly scope: string;
  readonly clock?: Clock;
  readonly onDailyLimit?: 'throw' | 'wait';
  readonly heartbeatMs?: number;
  /** Clock ms this process looks at a window later than the end it computed (the Redis governor's skew margin). */
  readonly skewMarginMs?: number;
}

/** Connects to Redis and starts a shared governor. @throws DeflowError `E_QUEUE_CONNECT` */
export async function openSharedGovernor(target: RedisTarget, options: OpenGovernorOptions): Promise<SharedGovernor> {
  const redis = await openRedis(target, { purpose: 'rate governor' });
  let subscriber: Redis;
  try {
    subscriber = await openRedis(target, { purpose: 'rate governor', blocking: true });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const governor = new RedisGovernor({
    redis,
    subscriber,
    prefix: accountPrefix(options.scope),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.onDailyLimit === undefined ? {} : { onDailyLimit: options.onDailyLimit }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.skewMarginMs === undefined ? {} : { skewMarginMs: options.skewMarginMs }),
  });
  await governor.start();
  return {
    governor,
    redis,
    async close() {
      await governor.close();
      await Promise.all([redis.quit().catch(() => redis.disconnect()), subscriber.quit().catch(() => subscriber.disconnect())]);
    },
  };
}
