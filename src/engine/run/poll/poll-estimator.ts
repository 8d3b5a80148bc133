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
 * the scouts' ends set the estimate (the order statistic at the quantile). Once settled, a first
 * poll that finds a job running reads its end from one reading and the measured queued share,
 * and the estimate rises to the quantile of the last durations seen (jobs found done counted as
 * no longer than the estimate): two scouts are a noisy sample, and when they were short the
 * jobs polled next say so. So two scouts suffice (each costs two or three status requests
 * more than a job polled once). Every first poll is re-planned on the estimate when it is due,
 * and as soon as the search ends when it was planned before (poller.ts), and first polls due at
 * once go out in waves (first-poll-waves.ts), so the rest of a batch waits one round trip for
 * the first answers rather than paying a second poll each.
 * A poll that finds a job running aims the next poll just past the end its progress points to
 * (next-poll.ts).
 */
import type { ResultKind } from '../../../service/index.js';
import { FirstPollWaves } from './first-poll-waves.js';
import { CALIBRATING_PROGRESS, planNextPoll, type RunningObservation } from './next-poll.js';
import { extrapolate, type ProgressReading, progressLine } from '../progress-line.js';
import { InputScales } from './input-scales.js';
import { HOLD_BOUND, type LearnedKey, newTrack, PRIORS_MS, quantileOf, restoredTrack, SCOUT_ENDS, SCOUTS, see, SILENT_JOBS_BEFORE_TRACKING, type Track } from './poll-track.js';
import { SearchWaiters } from './search-waiters.js';
import { StatusProbe } from './status-probe.js';

export type { RunningObservation } from './next-poll.js';
export type { ProgressReading } from '../progress-line.js';
export type { LearnedKey } from './poll-track.js';

/** Options of {@link PollEstimator}. */
export interface PollEstimatorOptions {
  /**
   * Share of jobs a first poll should find finished. A job found running costs a second status
   * request; one found done was seen late by up to the estimate minus its duration, which delays
   * what follows it. On the pipeline benchmark (60 items) 0.8 cost 1.22 status requests per job
   * (up to 1.34 over 24 seeds), 0.9 cost 1.18 but 0.02-0.03 × the bound more makespan in real
   * time (jobs accepted seconds apart, the latest items seen later).
   * @default 0.85
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

/** Per-(task, model) first-poll estimates, shared by every job of a run. */
export class PollEstimator {
  private readonly tracks = new Map<string, Track>();
  /** Measured keys' reference sizes and spreads (input-scales.ts). */
  private readonly scales = new InputScales();
  /** Jobs waiting for a key's search to end (their first polls planned on a provisional estimate). */
  private readonly searchWaiters = new SearchWaiters();
  private readonly quantile: number;
  private readonly rate: number;
  private readonly maxDelayMs: number;
  private readonly minDelayMs: number;
  private readonly prior: (kind: ResultKind) => number;
  /** First polls of a key due at once go out in waves (first-poll-waves.ts). */
  readonly waves = new FirstPollWaves();
  /** First polls planned before the job-status pool's limits are known (status-probe.ts). */
  readonly statusProbe = new StatusProbe();

  constructor(options: PollEstimatorOptions = {}) {
    this.quantile = options.quantile ?? 0.85;
    this.rate = options.rate ?? 0.05;
    this.maxDelayMs = options.maxDelayMs ?? 120_000;
    this.minDelayMs = options.minDelayMs ?? 100;
    this.prior = options.priorMs ?? ((kind) => PRIORS_MS[kind]);
    if (!(this.quantile > 0 && this.quantile < 1)) throw new RangeError(`quantile: expected a number in (0, 1), got ${this.quantile}`);
  }

  /**
   * How long after acceptance to poll a job of `key` (task and model) for the first time; for a
   * measured job (a per-input key) the estimate is per unit of input, and `scale` its size.
   * Until a job of the key was found running, polls come early (a fifth of the estimate):
   * one running job's progress tells its duration, while a prior can be off many times over.
   */
  firstDelay(key: string, kind: ResultKind, scout = true, scale = 1, holdWhileSearching = false): number {
    const track = this.track(key, kind);
    if (!track.searching || !scout) return this.clamp(track.estimate * scale);
    // A few scouts poll early; the jobs started with them wait out the prior, since when many
    // start together (a fan-out's first window) every early poll would pay the search again.
    if (track.scouts < SCOUTS) {
      track.scouts++;
      return this.clamp((track.estimate / 5) * scale);
    }
    // Measured jobs wait for the scouts (whenSettled wakes them): a prior scaled by a job's size
    // is a guess per job, and a whole batch polled on it pays a second poll each. They wait no
    // longer than twice that guess, and a scout found done early wakes them sooner (wakeHeld).
    return this.clamp(track.estimate * scale * (holdWhileSearching && track.searching ? HOLD_BOUND : 1));
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

  /**
   * Resolves once the search for `key`'s duration has ended (at once when it has): a first poll
   * planned on a provisional estimate (one scout's reading, or the prior) is re-planned then.
   */
  whenSettled(key: string): Promise<void> {
    if (this.settledMs(key) !== undefined) return Promise.resolve();
    return this.searchWaiters.wait(key);
  }

  private endSearch(track: Track): void {
    track.searching = false;
    this.searchWaiters.wake(track.key);
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
        // Done already at an early poll: the prior is far too long, and another scout goes at a
        // fifth of the shorter estimate (a job found done tells no duration, only a bound).
        track.estimate = Math.min(track.estimate, elapsedMs * 2);
        track.scouts = Math.max(0, track.scouts - 1);
        // The jobs waiting for the search may well be done too: they poll now, not at a bound
        // planned on the longer prior (short jobs would otherwise wait it out). The search goes on.
        this.searchWaiters.wake(track.key);
        return;
      }
      see(track, elapsedMs, true);
      if (elapsedMs <= track.estimate * 1.1) track.estimate *= Math.exp(-rate * (1 - this.quantile));
      return;
    }
    const extrapolated = extrapolate(elapsedMs, progress, track.queuedShare);
    if (track.searching) {
      // A scout found running is read again (nextDelay) and its two readings set the estimate.
      // Still queued, it says nothing yet. Without progress (a service that reports none) the
      // search goes on for a few jobs, then the tracker takes over from the estimate as it is.
      // A reading just out of the queue (under a tenth) points many times past the end: the
      // scout's second reading (its progress rate) tells instead.
      if (extrapolated !== undefined && progress! < CALIBRATING_PROGRESS) return;
      if (extrapolated !== undefined) {
        // Provisional (one reading overshoots by the queued time) until a second reading; when
        // none comes (jobs polled once, progress that does not rise), the readings settle it.
        track.estimate = extrapolated;
        if (++track.readings >= SCOUT_ENDS * 2) {
          this.endSearch(track);
          track.calibrated = true;
        }
        return;
      }
      if (queued || ++track.silent < SILENT_JOBS_BEFORE_TRACKING) return;
      this.endSearch(track);
    } else if (!track.calibrated && extrapolated !== undefined && progress! >= CALIBRATING_PROGRESS) {
      // The search ended on jobs still queued (no progress yet): the first reading sets the
      // estimate, which the tracker would take dozens of jobs to climb to from the prior.
      track.estimate = Math.max(track.estimate, extrapolated);
      track.calibrated = true;
    } else if (extrapolated !== undefined && track.shareSamples > 0 && progress! >= CALIBRATING_PROGRESS) {
      // The job's end, read from its progress with the measured queued share: the estimate moves
      // up to the quantile of what was seen, so a batch whose first wave mostly finds its jobs
      // running (a short estimate) re-plans the rest on it.
      see(track, extrapolated, false);
      const estimate = track.estimate;
      track.estimate = Math.max(estimate, quantileOf(track.seen.map(({ ms, done }) => (done ? Math.min(ms, estimate) : ms)), this.quantile));
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
    // Settled once two are measured: when jobs arrive one by one (a chained step), the first
    // alone would set the quantile. Until then the longest measured is the estimate.
    if (!track.searching || track.ends.length >= SCOUT_ENDS) this.settleOnEnds(track);
    else track.estimate = track.ends[track.ends.length - 1]!;
  }

  /** The order statistic of the scouts' ends at the quantile (of 2, the longest). */
  private settleOnEnds(track: Track): void {
    track.estimate = quantileOf(track.ends, this.quantile);
    track.seen = track.ends.map((ms) => ({ ms, done: false }));
    this.endSearch(track);
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
    this.endSearch(track);
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

  /**
   * What this run learned that the next run can start from (poll-memory.ts): each key whose
   * estimate a progress reading set, with its queued share.
   */
  snapshot(): LearnedKey[] {
    const learned: LearnedKey[] = [];
    for (const track of this.tracks.values()) {
      if (track.calibrated && !track.searching) learned.push({ key: track.key, estimateMs: track.estimate, queuedShare: track.queuedShare, shareSamples: track.shareSamples, unitSize: this.scales.unitSize(track.key) });
    }
    return learned;
  }

  /**
   * A measured job's size relative to its key's reference size, the size its estimates are for:
   * every wait of the job is scaled by it. The reference is the first job's size (or an earlier
   * run's), so the prior stands for a job of that size and jobs all of one size poll as if
   * unmeasured.
   */
  relativeSize(key: string, size: number): number {
    return this.scales.relativeSize(key, size);
  }

  /** Largest over smallest size of the measured jobs of `key` seen so far (1 when none or alike). */
  sizeSpread(key: string): number {
    return this.scales.sizeSpread(key);
  }

  /**
   * Starts keys from an earlier run's estimates: settled at once (no scouts, no early polls),
   * and moved by this run's jobs like any settled estimate. Keys this run already learned stay.
   */
  restore(learned: readonly LearnedKey[]): void {
    for (const entry of learned) {
      if (this.tracks.has(entry.key) || !(entry.estimateMs > 0)) continue;
      if (entry.unitSize !== undefined) {
        if (!(entry.unitSize > 0)) continue;
        this.scales.setUnitSize(entry.key, entry.unitSize);
      }
      this.tracks.set(entry.key, restoredTrack(entry));
    }
  }

  /**
   * The wait before the next poll of a job found still running (next-poll.ts). A measured job's
   * observation is per unit of its input, `scale` its size: the wait is clamped in real time.
   */
  nextDelay(observation: RunningObservation, scale = 1): number {
    const track = observation.key === undefined ? undefined : this.tracks.get(observation.key);
    return this.clamp(planNextPoll(observation, track, this.minDelayMs / scale) * scale);
  }

  private track(key: string, kind: ResultKind): Track {
    let track = this.tracks.get(key);
    if (!track) {
      track = newTrack(key, this.prior(kind));
      this.tracks.set(key, track);
    }
    return track;
  }

  private clamp(ms: number): number {
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, ms));
  }
}
