/**
 * When to poll a job found still running: just past the end its progress points to (from two
 * readings of the job, or from one and the queued share its key's scouts measured), soon again
 * for a scout whose key waits for its progress rate, else a backoff capped by the key's typical
 * duration.
 */
import { extrapolate, type ProgressReading, progressLine } from '../progress-line.js';

/** A poll that found the job still running. */
export interface RunningObservation {
  /** Time since the submission was accepted, ms. */
  readonly elapsedMs: number;
  /** 0-100, or null when the service sent none. */
  readonly progress: number | null;
  /** The wait before the poll that saw this, ms. */
  readonly previousDelayMs: number;
  /** The job's task and model's settled estimate (`PollEstimator.settledMs`), when there is one. */
  readonly typicalMs?: number | undefined;
  /** The job's previous running reading, when it had one. */
  readonly previous?: ProgressReading | undefined;
  /** Estimator key (task and model): a scout of a key still searching is read again soon. */
  readonly key?: string | undefined;
  /**
   * The job-status pool has room to spare: aim at the end the progress points to with a small
   * margin (a poll that comes a little early costs one more request, which is cheap then).
   */
  readonly eager?: boolean | undefined;
}

/** Margins of an eager aim: share of the job's age added past the end (two readings, one). */
const EAGER_PAD_LINE = 0.004;
const EAGER_PAD_ONE = 0.01;

/** Past its typical duration, a running job is polled again after this share of that duration. */
const TAIL_SHARE = 0.1;

/** A scout found running is read again after this share of its age, to measure its progress rate. */
const SECOND_READING_SHARE = 0.3;

/**
 * Least progress (percent) that calibrates an estimate the search left uncalibrated: a job just
 * out of its queue reads 0.3 % and would extrapolate to many times its duration.
 */
export const CALIBRATING_PROGRESS = 10;

/** What the poll estimator knows of a job's key (task and model). */
export interface KeyProgress {
  /** No job of the key was found running with progress yet: its scouts are read twice. */
  readonly searching: boolean;
  /** Share of a job's life spent queued at 0 %, or 0 until measured. */
  readonly queuedShare: number;
  /** Jobs that measured `queuedShare`. */
  readonly shareSamples: number;
}

/** The wait before the next poll of a job found still running (unclamped), given what is known of its key. */
export function planNextPoll(observation: RunningObservation, track: KeyProgress | undefined, minDelayMs: number): number {
  const line = observation.previous === undefined || observation.progress === null ? undefined : progressLine(observation.previous, { elapsedMs: observation.elapsedMs, progress: observation.progress });
  if (line === undefined && track?.searching && observation.progress !== null && observation.progress > 0 && observation.progress < 100) {
    // A scout: a second reading soon gives its progress rate, which the whole key waits for.
    return Math.max(1000, observation.elapsedMs * SECOND_READING_SHARE);
  }
  const extrapolated = line?.end ?? extrapolate(observation.elapsedMs, observation.progress, track?.queuedShare ?? 0);
  // Aim a little past the extrapolated end, so the next poll is the last one; without usable
  // progress (queued, or not reported), back off geometrically. Two readings of the job itself
  // place its end exactly (up to the rounding of progress): a smaller margin.
  // Progress the scouts calibrated (their queued share is measured) and read past its first
  // tenth points at the end: it is not capped by the typical duration the way a raw reading is.
  const trusted = line !== undefined || (track !== undefined && track.shareSamples > 0 && (observation.progress ?? 0) >= CALIBRATING_PROGRESS);
  const eager = observation.eager === true && trusted && extrapolated !== undefined;
  const margin = eager ? 1 : line !== undefined ? 1.02 : 1.1;
  const pad = eager ? (line !== undefined ? EAGER_PAD_LINE : EAGER_PAD_ONE) : line !== undefined ? 0.005 : 0.02;
  const planned =
    extrapolated !== undefined
      ? (extrapolated - observation.elapsedMs) * margin + Math.max(minDelayMs, observation.elapsedMs * pad)
      : Math.max(observation.previousDelayMs * 1.5, observation.elapsedMs * 0.25);
  return trusted && extrapolated !== undefined ? planned : Math.min(planned, tailCap(observation, minDelayMs));
}

/**
 * The longest wait a job's typical duration allows: until that duration plus a tenth of it
 * while the job is younger; past it, a tenth of it, growing by half at each further poll.
 * A progress reading taken early (or one that counts a queue) can point far past the end, and
 * a backoff from a first wait as long as the job's whole duration makes the tail jobs (a fifth
 * of them, by the quantile) wait most of another duration to be seen done. Measured on the
 * pipeline benchmark (transcribe → speak, 60 items): finished transcriptions were seen a
 * median 15 s and up to 80 s late, the speech sent that much later.
 */
function tailCap(observation: RunningObservation, minDelayMs: number): number {
  const typical = observation.typicalMs;
  if (typical === undefined || !(typical > 0)) return Number.POSITIVE_INFINITY;
  const tail = Math.max(minDelayMs, Math.max(typical, observation.elapsedMs) * TAIL_SHARE);
  if (observation.elapsedMs < typical) return typical - observation.elapsedMs + tail;
  // The wait that led here was the first (about the whole duration) or an earlier tail step.
  return observation.previousDelayMs >= typical / 2 ? tail : Math.max(tail, observation.previousDelayMs * 1.5);
}
