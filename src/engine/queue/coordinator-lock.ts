/**
 * One coordinator per workflow state in a queue: `deflow run --queue` holds a lock in Redis on
 * the workflow's runs (its digest, within the account) while it chooses which run to drive and
 * for as long as it drives it. The lock is a lease: `SET NX PX`, renewed while the coordinator
 * lives and deleted when it ends. It holds the same record as a lock file (pid, host, boot id,
 * process start time), so that a coordinator on this host killed a moment ago is taken over at
 * once (atomically: the record is replaced only if it is still the dead one's); a coordinator on
 * another host that died frees the lock when its lease runs out.
 */
import type { Redis } from 'ioredis';
import { DeflowError } from '../../common/index.js';
import { describeLockRecord, type LockHolder, lockedMessage, LockWait, newLockRecord } from '../journal/index.js';

/** How long a lease lasts without renewal. */
export const COORDINATOR_LEASE_MS = 30_000;

export interface CoordinatorLockOptions {
  /** What the lock guards, as messages name it. */
  readonly subject: string;
  /** `--wait-lock`: how long to wait for a live holder (ms, or Infinity). @default 0 */
  readonly waitMs?: number;
  /** Called once when the wait begins. */
  readonly onWait?: (holder: LockHolder, message: string) => void;
  /** Called if the lease is lost (this process stalled past it and another took the lock). */
  readonly onLost?: () => void;
  /** Resolves on SIGINT: a wait ends with `E_INTERRUPTED`. */
  readonly interrupted?: Promise<void>;
  /** @default COORDINATOR_LEASE_MS */
  readonly leaseMs?: number;
  /** @default 200 */
  readonly pollMs?: number;
}

export interface CoordinatorLock {
  readonly key: string;
  /** Stops renewing and deletes the lock if this process still holds it. Idempotent. */
  release(): Promise<void>;
}

const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const REPLACE = "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end";

/**
 * Takes the coordinator lock `key`.
 * @throws DeflowError `E_STATE_LOCKED` when another live coordinator holds it (after `waitMs`); `E_INTERRUPTED`
 */
export async function acquireCoordinatorLock(redis: Redis, key: string, options: CoordinatorLockOptions): Promise<CoordinatorLock> {
  const record = newLockRecord();
  const leaseMs = options.leaseMs ?? COORDINATOR_LEASE_MS;
  const waitMs = options.waitMs ?? 0;
  const wait = new LockWait({ waitMs, subject: options.subject, onWait: options.onWait, interrupted: options.interrupted, pollMs: options.pollMs });
  for (;;) {
    if ((await redis.set(key, record, 'PX', leaseMs, 'NX')) === 'OK') return heldLease(redis, key, record, leaseMs, options.onLost);
    const seen = await redis.get(key);
    if (seen === null) continue; // released (or expired) between the two commands
    const holder = describeLockRecord(seen);
    if (!holder.alive) {
      // Its holder ran on this host and is gone: no need to wait for the lease to run out.
      if ((await redis.eval(REPLACE, 1, key, seen, record, String(leaseMs))) === 1) return heldLease(redis, key, record, leaseMs, options.onLost);
      continue;
    }
    const waited = wait.waited();
    if (waited >= waitMs) {
      const ttl = await redis.pttl(key);
      const hint = `its lease runs out ${ttl > 0 ? `within ${Math.ceil(ttl / 1000)} s` : 'soon'} unless it is renewed`;
      const message = `${lockedMessage(options.subject, holder, hint)}${waitMs > 0 ? ` (waited ${Math.round(waited / 1000)} s)` : ''}`;
      throw new DeflowError('E_STATE_LOCKED', message, { details: { key, pid: holder.pid, hostname: holder.hostname, started_at: holder.acquiredAt } });
    }
    wait.tell(() => holder);
    await wait.pause();
  }
}

function heldLease(redis: Redis, key: string, record: string, leaseMs: number, onLost: (() => void) | undefined): CoordinatorLock {
  let released = false;
  let lost = false;
  const timer = setInterval(() => {
    redis
      .eval(RENEW, 1, key, record, String(leaseMs))
      .then((renewed) => {
        if (renewed === 0 && !released && !lost) {
          lost = true;
          onLost?.();
        }
      })
      .catch(() => {
        // Redis unreachable for a moment: the next renewal tries again within the lease.
      });
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    key,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await redis.eval(RELEASE, 1, key, record).catch(() => {});
    },
  };
}
