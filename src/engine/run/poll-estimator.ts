/**
 * When to poll a job. Every status request spends the job-status pool, so the first poll goes
 * out when the job is probably done: at the `quantile` of its task and model's durations.
 * That quantile is tracked from what first polls find (done or not) rather than from measured
 * durations, which a poll only bounds from above: after each first poll the estimate moves up
 * by `rate·quantile` or down by `rate·(1 − quantile)` in log space, which settles where a
 * share `quantile` of first polls find the job done. Until a job is first found running with
 * a progress reading, first polls come early (a fifth of the estimate) and each job found
 * done already cuts the estimate. A scout found running is read a second time soon after: two
 * readings give the job's progress rate, hence its exact start and end (a job spends part of
 * its life queued at 0 %, so one reading, `t·100/p` from acceptance, overshoots the end), and
 * the scouts' ends set the estimate (the order statistic at the quantile). Jobs that started
 * with the scouts and wait out the prior re-plan their first poll on the settled estimate
 * ({@link PollEstimator.settledMs}). A poll that finds a job running aims the next poll just past
 * the end its progress points to: from two readings of the job when it has them, else from one
 * reading and the queued share of a job's life that the scouts measured.
 */
import type { ResultKind } from '../../service/index.js';
import { extrapolate, type ProgressReading, progressLine } from './progress-line.js';

export type { ProgressReading } from './progress-line.js';

/** Options of {@link PollEstimator}. */
export interface PollEstimatorOptions {
  /**
   * Share of jobs a first poll should find finished.
   * @default 0.8
   */
  readonly quantile?: number;
  /**
   * Step of the tracker in log space.
   * @default 0.05
   */
  readonly rate?: number;
  /**
   * Longest wait between two polls of one job, ms.
   * @default 120000
   */
  readonly maxDelayMs?: number;
  /**
   * Shortest wait between two polls of one job, ms.
   * @default 100
   */
  readonly minDelayMs?: number;
  /** Typical duration of a job of this result kind before any is observed, ms. */
  readonly priorMs?: (kind: ResultKind) => number;
}

/** Typical job durations before any is observed (the service's own order of magnitude). */
const PRIORS_MS: Readonly<Record<ResultKind, number>> = {
  text: 10_000,
  json: 30_000,
  vectors: 2_000,
  image: 8_000,
  audio: 10_000,
  video: 60_000,
};

/** A poll that found the job still running. */
export interface RunningObservation {
  /** Time since the submission was accepted, ms. */
  readonly elapsedMs: number;
  /** 0-100, or null when the service sent none. */
  readonly progress: number | null;
  /** The wait before the poll that saw this, ms. */
  readonly previousDelayMs: number;
  /** The job's task and model's settled estimate ({@link PollEstimator.settledMs}), when there is one. */
  readonly typicalMs?: number | undefined;
  /** The job's previous running reading, when it had one. */
  readonly previous?: ProgressReading | undefined;
  /** Estimator key (task and model): a scout of a key still searching is read again soon. */
  readonly key?: string | undefined;
}

/** Past its typical duration, a running job is polled again after this share of that duration. */
const TAIL_SHARE = 0.1;

interface Track {
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
}

/** Scout durations that calibrate an estimate (the quantile is read from them). */
const SCOUT_ENDS = 4;

/** A scout found running is read again after this share of its age, to measure its progress rate. */
const SECOND_READING_SHARE = 0.3;

/** Jobs of a key that poll early while its duration is unknown. */
const SCOUTS = 4;

/**
 * Least progress (percent) that calibrates an estimate the search left uncalibrated: a job just
 * out of its queue reads 0.3 % and would extrapolate to many times its duration.
 */
const CALIBRATING_PROGRESS = 10;

/** Jobs found running without progress before the early first polls stop. */
const SILENT_JOBS_BEFORE_TRACKING = 3;

/** Per-(task, model) first-poll estimates, shared by every job of a run. */
export class PollEstimator {
  private readonly tracks = new Map<string, Track>();
  private readonly quantile: number;
  private readonly rate: number;
  private readonly maxDelayMs: number;
  private readonly minDelayMs: number;
  private readonly prior: (kind: ResultKind) => number;

  constructor(options: PollEstimatorOptions = {}) {
    this.quantile = options.quantile ?? 0.8;
    this.rate = options.rate ?? 0.05;
    this.maxDelayMs = options.maxDelayMs ?? 120_000;
    this.minDelayMs = options.minDelayMs ?? 100;
    this.prior = options.priorMs ?? ((kind) => PRIORS_MS[kind]);
    if (!(this.quantile > 0 && this.quantile < 1)) throw new RangeError(`quantile: expected a number in (0, 1), got ${this.quantile}`);
  }

  /**
   * How long after acceptance to poll a job of `key` (task and model) for the first time.
   * Until a job of the key was found running, polls come early (a fifth of the estimate):
   * one running job's progress tells its duration, while a prior can be off many times over.
   */
  firstDelay(key: string, kind: ResultKind, scout = true): number {
    const track = this.track(key, kind);
    if (!track.searching || !scout) return this.clamp(track.estimate);
    // A few scouts poll early; the jobs started with them wait out the prior, since when many
    // start together (a fan-out's first window) every early poll would pay the search again.
    if (track.scouts < SCOUTS) {
      track.scouts++;
      return this.clamp(track.estimate / 5);
    }
    return this.clamp(track.estimate);
  }

  /** The estimate for `key` (ms), used to size concurrency. */
  typicalMs(key: string, kind: ResultKind): number {
    return this.track(key, kind).estimate;
  }

  /** The estimate for `key` (ms) once a running job's progress or a few first polls set it; undefined while still searching. */
  settledMs(key: string): number | undefined {
    const track = this.tracks.get(key);
    return track && !track.searching ? track.estimate : undefined;
  }

  /** Whether jobs of `key` have been observed yet. */
  observed(key: string): boolean {
    return (this.tracks.get(key)?.observations ?? 0) > 0;
  }

  /**
   * A first poll, sent `elapsedMs` after acceptance, found the job finished (`done`) or not.
   * Only answers that say something new move the estimate: a job found done no later than
   * the estimate, or found running no earlier than it. When many jobs are in flight, answers
   * to polls planned on an older estimate would otherwise push it the same way over and over.
   */
  observeFirstPoll(key: string, kind: ResultKind, elapsedMs: number, done: boolean, progress: number | null, queued = false): void {
    const track = this.track(key, kind);
    // Larger steps while few jobs were seen, so a poor prior is left behind within a few jobs.
    const rate = Math.max(this.rate, 0.5 / Math.sqrt(track.observations + 1));
    track.observations++;
    if (done) {
      if (track.searching) {
        // Done already at an early poll: the prior is far too long.
        track.estimate = Math.min(track.estimate, elapsedMs * 2);
        return;
      }
      if (elapsedMs <= track.estimate * 1.1) track.estimate *= Math.exp(-rate * (1 - this.quantile));
      return;
    }
    const extrapolated = extrapolate(elapsedMs, progress, track.queuedShare);
    if (track.searching) {
      // A scout found running is read again (nextDelay) and its two readings set the estimate.
      // Still queued, it says nothing yet. Without progress (a service that reports none) the
      // search goes on for a few jobs, then the tracker takes over from the estimate as it is.
      if (extrapolated !== undefined) {
        // Provisional (one reading overshoots by the queued time) until a second reading; when
        // none comes (jobs polled once, progress that does not rise), the readings settle it.
        track.estimate = extrapolated;
        if (++track.readings >= SCOUT_ENDS * 2) {
          track.searching = false;
          track.calibrated = true;
        }
        return;
      }
      if (queued || ++track.silent < SILENT_JOBS_BEFORE_TRACKING) return;
      track.searching = false;
    } else if (!track.calibrated && extrapolated !== undefined && progress! >= CALIBRATING_PROGRESS) {
      // The search ended on jobs still queued (no progress yet): the first reading sets the
      // estimate, which the tracker would take dozens of jobs to climb to from the prior.
      track.estimate = Math.max(track.estimate, extrapolated);
      track.calibrated = true;
    } else if (elapsedMs >= track.estimate * 0.9) track.estimate *= Math.exp(rate * this.quantile);
  }

  /**
   * Two running readings of one job (a scout's, or any job polled twice): its progress rate
   * gives its end and the share of its life spent queued. While the key's estimate is not
   * calibrated, the ends set it.
   */
  observeReadings(key: string, kind: ResultKind, first: ProgressReading, second: ProgressReading): void {
    const line = progressLine(first, second);
    if (line === undefined) return;
    const track = this.track(key, kind);
    const share = Math.min(0.9, Math.max(0, line.start / line.end));
    track.queuedShare = (track.queuedShare * track.shareSamples + share) / (track.shareSamples + 1);
    track.shareSamples = Math.min(track.shareSamples + 1, 20);
    // Only the search (and a search that ended uncalibrated) takes ends; the tracker does the rest.
    if (track.calibrated) return;
    track.ends.push(line.end);
    track.ends.sort((a, b) => a - b);
    // Settled once four are measured: when jobs arrive one by one (a chained step), the first
    // alone would set the quantile. Until then the longest measured is the estimate.
    if (!track.searching || track.ends.length >= SCOUT_ENDS) this.settleOnEnds(track);
    else track.estimate = track.ends[track.ends.length - 1]!;
  }

  /** The order statistic of the scouts' ends at the quantile (of 4 at 0.8, the longest). */
  private settleOnEnds(track: Track): void {
    const index = Math.min(track.ends.length - 1, Math.max(0, Math.ceil(this.quantile * (track.ends.length + 1)) - 1));
    track.estimate = track.ends[index]!;
    track.searching = false;
    track.calibrated = true;
  }

  /**
   * A scout's later poll found it finished. If no job was read twice yet (a short job), the
   * search ends on the estimate so far, no longer than the time it took.
   */
  observeLaterDone(key: string, kind: ResultKind, elapsedMs: number): void {
    const track = this.track(key, kind);
    // Scouts read twice already: the search waits for more (later scouts, or jobs read twice at
    // their first poll), since one short scout alone would set the quantile.
    if (!track.searching || track.ends.length > 0) return;
    track.estimate = Math.min(track.estimate, elapsedMs);
    track.searching = false;
  }

  /**
   * A job's exact duration (a verified webhook delivery came as it finished): until the
   * estimate is calibrated it counts as a scout's end; then it steps the quantile tracker.
   */
  observeEnd(key: string, kind: ResultKind, durationMs: number): void {
    const track = this.track(key, kind);
    track.observations++;
    if (!track.calibrated) {
      track.ends.push(durationMs);
      track.ends.sort((a, b) => a - b);
      if (track.ends.length >= SCOUT_ENDS) this.settleOnEnds(track);
      else track.estimate = track.ends[track.ends.length - 1]!;
      return;
    }
    const rate = Math.max(this.rate, 0.5 / Math.sqrt(track.observations));
    track.estimate *= Math.exp(durationMs <= track.estimate ? -rate * (1 - this.quantile) : rate * this.quantile);
  }

  /** The wait before the next poll of a job found still running. */
  nextDelay(observation: RunningObservation): number {
    const track = observation.key === undefined ? undefined : this.tracks.get(observation.key);
    const line = observation.previous === undefined || observation.progress === null ? undefined : progressLine(observation.previous, { elapsedMs: observation.elapsedMs, progress: observation.progress });
    if (line === undefined && track?.searching && observation.progress !== null && observation.progress > 0 && observation.progress < 100) {
      // A scout: a second reading soon gives its progress rate, which the whole key waits for.
      return this.clamp(Math.max(1000, observation.elapsedMs * SECOND_READING_SHARE));
    }
    const extrapolated = line?.end ?? extrapolate(observation.elapsedMs, observation.progress, track?.queuedShare ?? 0);
    // Aim a little past the extrapolated end, so the next poll is the last one; without usable
    // progress (queued, or not reported), back off geometrically. Two readings of the job itself
    // place its end exactly (up to the rounding of progress): a smaller margin.
    const margin = line !== undefined ? 1.02 : 1.1;
    const planned =
      extrapolated !== undefined
        ? (extrapolated - observation.elapsedMs) * margin + Math.max(this.minDelayMs, observation.elapsedMs * (line !== undefined ? 0.005 : 0.02))
        : Math.max(observation.previousDelayMs * 1.5, observation.elapsedMs * 0.25);
    // Progress the scouts calibrated (their queued share is measured) and read past its first
    // tenth points at the end: it is not capped by the typical duration the way a raw reading is.
    const trusted = line !== undefined || (track !== undefined && track.shareSamples > 0 && (observation.progress ?? 0) >= CALIBRATING_PROGRESS);
    return this.clamp(trusted && extrapolated !== undefined ? planned : Math.min(planned, this.tailCap(observation)));
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
  private tailCap(observation: RunningObservation): number {
    const typical = observation.typicalMs;
    if (typical === undefined || !(typical > 0)) return Number.POSITIVE_INFINITY;
    const tail = Math.max(this.minDelayMs, Math.max(typical, observation.elapsedMs) * TAIL_SHARE);
    if (observation.elapsedMs < typical) return typical - observation.elapsedMs + tail;
    // The wait that led here was the first (about the whole duration) or an earlier tail step.
    return observation.previousDelayMs >= typical / 2 ? tail : Math.max(tail, observation.previousDelayMs * 1.5);
  }

  private track(key: string, kind: ResultKind): Track {
    let track = this.tracks.get(key);
    if (!track) {
      track = { estimate: this.prior(kind), observations: 0, searching: true, silent: 0, calibrated: false, scouts: 0, ends: [], queuedShare: 0, shareSamples: 0, readings: 0 };
      this.tracks.set(key, track);
    }
    return track;
  }

  private clamp(ms: number): number {
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, ms));
  }
}
