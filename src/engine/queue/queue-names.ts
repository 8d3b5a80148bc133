/**
 * Names in Redis. BullMQ keys are `deflow:<queue>:…`, one queue per rate-limit pool and
 * account (`<scope>.<pool>`, slashes as dots: BullMQ refuses `:` in names); deflow's own keys
 * are `deflow:<scope>:…`. A node's job id is `run:step:item` (BullMQ allows exactly three
 * parts), so that enqueueing a node twice is a no-op.
 */
import { accountPrefix } from './account-scope.js';

/** BullMQ's key prefix for every deflow queue. */
export const BULL_PREFIX = 'deflow';

/** The queue of `pool` for the account `scope`. */
export function queueName(scope: string, pool: string): string {
  return `${scope}.${pool.replace(/[/:]/g, '.')}`;
}

/** The job id of item `k` of `step` in run `runId`. */
export function nodeJobId(runId: string, step: string, k: number): string {
  return `${runId}:${step}:${k}`;
}

/** The parts of a node job id, or null for another kind of id. */
export function parseNodeJobId(jobId: string): { runId: string; step: string; k: number } | null {
  const parts = jobId.split(':');
  if (parts.length !== 3 || !/^\d+$/.test(parts[2]!)) return null;
  return { runId: parts[0]!, step: parts[1]!, k: Number(parts[2]) };
}

/** deflow's own keys of an account. */
export function accountKeys(scope: string) {
  const prefix = accountPrefix(scope);
  return {
    /** Hash per run: its meta data. */
    run: (runId: string) => `${prefix}:run:${runId}`,
    /** Sorted set of run ids by start time. */
    runs: `${prefix}:runs`,
    /** Set of pools whose queues have work (workers serve these). */
    pools: `${prefix}:pools`,
    /** Hash of workers seen: owner id → JSON (host, pid, last seen). */
    workers: `${prefix}:workers`,
    /** The coordinator's lock on a workflow's runs (by workflow digest), a lease (coordinator-lock.ts). */
    coordinator: (digest: string) => `${prefix}:coordinator:${digest}`,
  } as const;
}
