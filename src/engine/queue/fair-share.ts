/**
 * Oldest first across processes. Each process that has requests waiting for a shared bucket
 * records in the bucket's shared state when they started to wait (its claim). A process that
 * finds the bucket with room takes slots only for its waiters among the oldest of all claims,
 * and leaves the rest of the room to the processes whose waiters are older. Without this the
 * process that looked first when a window opened took the whole window for its own waiters:
 * with 4 workers one of them submitted a single transcription in ten minutes while the others
 * took every window, and the items it held finished last.
 */
import { GovernorBucket, type Refusal } from '../../client/index.js';

/** One process's waiters: when it wrote this (clock ms), and `[since / 100 ms, count]` pairs, oldest first. */
export interface WaiterClaim {
  readonly at: number;
  readonly w: readonly number[];
}

/** Clock ms a claim's times are rounded to (the state stays small: one pair per burst of waiters). */
const GRAIN_MS = 100;
/**
 * A claim not renewed for this many windows is ignored. A process with waiters writes its claim
 * whenever it looks at the bucket, and it looks at least when each window opens; a claim written
 * early in one window is still current when the next opens (a window and a skew margin later).
 * One older than two windows belongs to a process that stalled or gave up.
 */
const STALE_WINDOWS = 2;

/** The claim of waiters that started to wait at `since` (clock ms, oldest first), or null when none. */
export function claimOf(since: readonly number[], at: number): WaiterClaim | null {
  if (since.length === 0) return null;
  const w: number[] = [];
  for (const t of since) {
    const grain = Math.floor(t / GRAIN_MS);
    if (w.length > 0 && w[w.length - 2] === grain) w[w.length - 1]!++;
    else w.push(grain, 1);
  }
  return { at, w };
}

export interface FairShare {
  /** How many of this process's waiters (its oldest) may take a slot now. */
  readonly share: number;
  /** When the room left after every claim's share runs out (null when there is room for all). */
  readonly refusal: Refusal | null;
}

/**
 * This process's share of the bucket's room now: of all waiters (its own, `since`, and the
 * other processes' live claims), the oldest get the slots the bucket has; ties go by owner id,
 * so that every process computes the same split.
 */
export function fairShare(bucket: GovernorBucket, now: number, since: readonly number[], claims: Readonly<Record<string, WaiterClaim>>, owner: string): FairShare {
  const staleBefore = now - STALE_WINDOWS * bucket.windowMs;
  const entries: { grain: number; owner: string; count: number }[] = [];
  let others = 0;
  for (const [other, claim] of Object.entries(claims)) {
    if (other === owner || claim.at < staleBefore) continue;
    for (let i = 0; i + 1 < claim.w.length; i += 2) {
      entries.push({ grain: claim.w[i]!, owner: other, count: claim.w[i + 1]! });
      others += claim.w[i + 1]!;
    }
  }
  if (others === 0) return { share: since.length, refusal: null };
  // How many slots the bucket has now, counted on a copy.
  const probe = GovernorBucket.fromState(bucket.key, bucket.toState());
  const total = since.length + others;
  let room = 0;
  let refusal: Refusal | null = null;
  while (room < total) {
    const reservation = probe.reserve(now);
    if (!reservation.ok) {
      refusal = { reason: reservation.reason, until: reservation.until };
      break;
    }
    room++;
  }
  if (refusal === null) return { share: since.length, refusal: null };
  for (const t of since) entries.push({ grain: Math.floor(t / GRAIN_MS), owner, count: 1 });
  entries.sort((a, b) => a.grain - b.grain || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
  let share = 0;
  for (const entry of entries) {
    if (room <= 0) break;
    const taken = Math.min(room, entry.count);
    room -= taken;
    if (entry.owner === owner) share += taken;
  }
  return { share, refusal };
}
