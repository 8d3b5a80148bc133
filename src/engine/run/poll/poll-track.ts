/**
 * One key's (task and model) first-poll estimate as the estimator tracks it
 * (poll-estimator.ts), the constants of its search for a duration, and the form one run leaves
 * it in for the next (poll-memory.ts).
 */
import type { ResultKind } from '../../../service/index.js';

/** Typical job durations before any is observed (the service's own order of magnitude). */
export const PRIORS_MS: Readonly<Record<ResultKind, number>> = {
  text: 10_000,
  json: 30_000,
  vectors: 2_000,
  image: 8_000,
  audio: 10_000,
  video: 60_000,
};

export interface Track {
  /** Task and model. */
  readonly key: string;
  /** Current estimate of the quantile, ms. */
  estimate: number;
  /** First polls observed. */
  observations: number;
  /** No job of this key was found still running (with a progress reading) yet. */
  searching: boolean;
  /** Jobs found running without a progress reading while searching. */
  silent: number;
  /** The estimate was set from a progress reading (not only from the prior and the tracker). */
  calibrated: boolean;
  /** Jobs sent on early first polls while searching. */
  scouts: number;
  /** Exact durations (ms) of jobs read twice while the estimate was not calibrated. */
  ends: number[];
  /** Share of a job's life spent queued at 0 % (measured from two readings), or 0 until measured. */
  queuedShare: number;
  /** Jobs that measured `queuedShare`. */
  shareSamples: number;
  /** Single running readings while searching. */
  readings: number;
  /**
   * Durations seen since the estimate settled, newest last: the scouts' ends and the ends that
   * first polls finding a job running read from its progress (exact), and the jobs first polls
   * found done (`done`: no longer than `ms`, and counted as no longer than the estimate).
   */
  seen: Array<{ ms: number; done: boolean }>;
}

/** Durations kept in {@link Track.seen}. */
const SEEN = 40;

/**
 * Scout durations that calibrate an estimate (the quantile is read from them). Four cost 16-20
 * status requests more per two-step run, 0.15 per job at 60 items; a short pair is corrected by
 * the first polls that find jobs running past it (observeFirstPoll), a long pair by the tracker.
 */
export const SCOUT_ENDS = 2;

/** Jobs of a key that poll early while its duration is unknown. */
export const SCOUTS = SCOUT_ENDS;

/** Jobs found running without progress before the early first polls stop. */
export const SILENT_JOBS_BEFORE_TRACKING = 3;

/** A measured job held for the search polls no later than this many times its scaled estimate. */
export const HOLD_BOUND = 2;

/**
 * Observations a restored key counts as: the tracker's early large steps (for a poor prior)
 * are not needed, yet this run's jobs still move it within a few dozen.
 */
const RESTORED_OBSERVATIONS = 10;

/** A key's estimate as one run leaves it for the next (poll-memory.ts). */
export interface LearnedKey {
  readonly key: string;
  /** The first-poll estimate (ms; for a key of measured jobs, of a job of size `unitSize`). */
  readonly estimateMs: number;
  /** A measured key's reference size (input-measure.ts): its estimates are for a job this large. */
  readonly unitSize?: number | undefined;
  readonly queuedShare: number;
  readonly shareSamples: number;
}

/** A key not observed yet: searching, from the prior. */
export function newTrack(key: string, priorMs: number): Track {
  return { key, estimate: priorMs, observations: 0, searching: true, silent: 0, calibrated: false, scouts: 0, ends: [], queuedShare: 0, shareSamples: 0, readings: 0, seen: [] };
}

/** A key restored from an earlier run: settled at once (no scouts, no early polls). */
export function restoredTrack(entry: LearnedKey): Track {
  return {
    key: entry.key,
    estimate: entry.estimateMs,
    observations: RESTORED_OBSERVATIONS,
    searching: false,
    silent: 0,
    calibrated: true,
    scouts: SCOUTS,
    ends: [],
    queuedShare: Math.min(0.9, Math.max(0, entry.queuedShare)),
    shareSamples: Math.min(20, Math.max(0, Math.round(entry.shareSamples))),
    readings: 0,
    seen: [],
  };
}

/** Records a duration seen since the estimate settled (the newest {@link SEEN} kept). */
export function see(track: Track, ms: number, done: boolean): void {
  track.seen.push({ ms, done });
  if (track.seen.length > SEEN) track.seen.shift();
}

/** The order statistic of `values` at `quantile` (of up to 12 at 0.85, the longest). */
export function quantileOf(values: readonly number[], quantile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * (sorted.length + 1)) - 1))]!;
}
