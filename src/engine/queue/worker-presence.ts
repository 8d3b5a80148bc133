/**
 * Whether a `deflow worker` is alive: each worker keeps a record in the account's workers hash
 * (`accountKeys(scope).workers`, keyed by its governor owner id) with a heartbeat renewed every
 * third of its lease. A worker that closes cleanly marks its record stopped; one whose
 * heartbeat is older than its lease was killed or lost (dead). Times are real wall time.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { accountKeys } from './queue-names.js';

/** A worker's record as Redis keeps it (JSON). `seen` alone: written by a deflow before heartbeats. */
export interface WorkerRecord {
  readonly host: string;
  readonly pid: number;
  /** Real ms: when it last took a new run (older records), or its last heartbeat. */
  readonly seen: number;
  readonly started?: number;
  readonly beat?: number;
  /** Real ms after its last heartbeat a worker is counted dead. */
  readonly leaseMs?: number;
  readonly stopped?: number;
}

/** `running`: its heartbeat is fresh; `stopped`: it closed cleanly; `dead`: its heartbeat expired; `seen`: a record without heartbeat. */
export type WorkerState = 'running' | 'stopped' | 'dead' | 'seen';

export interface WorkerPresence {
  readonly host: string;
  readonly pid: number;
  readonly state: WorkerState;
  /** Real ms of its last heartbeat (or when it was last seen). */
  readonly seen: number;
  readonly startedAt: number | null;
  readonly stoppedAt: number | null;
}

/** Records of workers stopped or dead for longer than this are removed when a worker starts. */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;

/** What a record says at real time `now`. */
export function workerPresence(record: WorkerRecord, now: number): WorkerPresence {
  const seen = record.beat ?? record.seen;
  const state: WorkerState =
    record.stopped !== undefined ? 'stopped' : record.beat === undefined || record.leaseMs === undefined ? 'seen' : now - record.beat > record.leaseMs ? 'dead' : 'running';
  return { host: record.host, pid: record.pid, state, seen, startedAt: record.started ?? null, stoppedAt: record.stopped ?? null };
}

/** Every worker of the account, newest heartbeat first. */
export async function readWorkerPresence(redis: Redis, scope: string, now: number): Promise<WorkerPresence[]> {
  const hash = await redis.hgetall(accountKeys(scope).workers);
  return Object.values(hash)
    .map(parseRecord)
    .filter((record): record is WorkerRecord => record !== undefined)
    .map((record) => workerPresence(record, now))
    .sort((a, b) => b.seen - a.seen);
}

/**
 * Keeps this process's record: written now, its heartbeat renewed every third of `leaseMs`
 * (real ms), marked stopped by `stop()`. Writes that fail are tried again at the next beat.
 */
export function keepWorkerPresence(redis: Redis, scope: string, owner: string, leaseMs: number): { stop(): Promise<void> } {
  const key = accountKeys(scope).workers;
  const started = Date.now();
  const record = (extra: Partial<WorkerRecord> = {}): string => {
    const now = Date.now();
    return JSON.stringify({ host: hostname(), pid: process.pid, seen: now, started, beat: now, leaseMs, ...extra } satisfies WorkerRecord);
  };
  const beat = (): void => {
    redis.hset(key, owner, record()).catch(() => 0);
  };
  beat();
  void forgetOld(redis, key, started);
  const timer = setInterval(beat, Math.max(100, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.hset(key, owner, record({ stopped: Date.now() })).catch(() => 0);
    },
  };
}

/** Removes records of workers stopped or dead for more than a week. */
async function forgetOld(redis: Redis, key: string, now: number): Promise<void> {
  try {
    const hash = await redis.hgetall(key);
    const old = Object.entries(hash).filter(([, text]) => {
      const record = parseRecord(text);
      return record === undefined || now - (record.stopped ?? record.beat ?? record.seen) > FORGET_AFTER_MS;
    });
    if (old.length > 0) await redis.hdel(key, ...old.map(([owner]) => owner));
  } catch {
    // Kept for the next worker to remove.
  }
}

function parseRecord(text: string): WorkerRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<WorkerRecord>;
    return typeof value.host === 'string' && typeof value.pid === 'number' && typeof value.seen === 'number' ? (value as WorkerRecord) : undefined;
  } catch {
    return undefined;
  }
}
