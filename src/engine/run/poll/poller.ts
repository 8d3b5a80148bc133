/**
 * Polls one job until it is `done` or `error`. Waits come from the poll estimator (first poll
 * when the job is probably done, then just past the end that `progress` points to, or a
 * bounded backoff), and each status request goes through the client, so the rate governor
 * paces it in the job-status pool. A poll answered with an error is retried with backoff by
 * the client; a wait never holds a concurrency slot other than the job's own.
 */
import type { DeapiClient } from '../../../client/index.js';
import { isTerminalStatus, type JobStatus } from '../../../client/index.js';
import type { Clock } from '../../../common/index.js';
import { DeflowError } from '../../../common/index.js';
import type { ResultKind } from '../../../service/index.js';
import { untilOrAborted } from './first-poll-waves.js';
import type { PollEstimator, ProgressReading } from './poll-estimator.js';

export interface PollJobOptions {
  readonly client: Pick<DeapiClient, 'jobStatus'>;
  readonly clock: Clock;
  readonly estimator: PollEstimator;
  /** Estimator key: task and model. */
  readonly key: string;
  readonly kind: ResultKind;
  readonly requestId: string;
  /** Clock ms when the submission was accepted. */
  readonly acceptedAt: number;
  /**
   * A job an earlier session submitted (a resume): clock ms when that session journalled it as
   * accepted. Its first poll is due the estimator's first delay after that (at once when that
   * is past) rather than after `acceptedAt`, and what that poll finds teaches the estimator
   * nothing: the job's age says nothing about how long jobs take.
   */
  readonly submittedAt?: number | undefined;
  readonly version?: 'v1' | 'v2';
  /** Fail the job after this long (clock ms since acceptance). */
  readonly timeoutMs?: number | undefined;
  /** Called with every status that is not final. */
  readonly onProgress?: (status: JobStatus) => void;
  /** Aborts the wait and the request in flight. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Waits between polls. @default clock.sleep. A webhook may end a wait early: with the job's
   * final status from a verified delivery (then no status request is sent), or with nothing.
   */
  readonly wait?: ((ms: number, signal?: AbortSignal) => Promise<JobStatus | null | void>) | undefined;
  /**
   * Verified webhook deliveries are expected (`wait` returns them): every planned wait is
   * stretched by this factor and no early scout polls are sent, so polls are the fallback for
   * a lost delivery. @default 1
   */
  readonly pushedStretch?: number | undefined;
  /**
   * The job's input size relative to a typical job (input-measure.ts), when measured: `key` is
   * then a per-input key, whose estimates are per unit of size, and every wait is scaled by it.
   * @default 1
   */
  readonly scale?: number | undefined;
  /**
   * Whether the job-status pool has room to spare now (no rate limit on it): the first poll
   * then goes out early enough to find the job running, and later polls aim at the end its
   * progress points to with little margin, so a finished job is noticed within a second or two
   * for about two or three status requests. Without room, the first poll goes out when the job
   * is probably done (one status request for most jobs); undefined while the pool's limits are
   * not known yet (status-probe.ts: one job polls early to learn them, and first polls planned
   * meanwhile are re-planned once a status answer came). @default no room
   */
  readonly roomy?: (() => boolean | undefined) | undefined;
  /**
   * Clock ms by which polling must end (an interrupt's grace period), read before each wait:
   * the last wait is shortened so that one poll still happens by then.
   */
  readonly deadline?: () => number | undefined;
}

/** A job that ran past its step's `timeout`. */
export class JobTimeoutError extends DeflowError {
  override name = 'JobTimeoutError';
  constructor(requestId: string, timeoutMs: number) {
    super('E_JOB_TIMEOUT', `job ${requestId}: not finished after ${Math.round(timeoutMs / 1000)} s (the step's timeout)`, {
      details: { requestId, timeoutMs },
    });
  }
}

/** Polling ended at its deadline with the job still running (it stays resumable). */
export class PollDeadlineError extends DeflowError {
  override name = 'PollDeadlineError';
  constructor(requestId: string) {
    super('E_POLL_DEADLINE', `job ${requestId}: still running when polling had to stop`, { details: { requestId } });
  }
}

/**
 * With room to spare in the job-status pool, a first poll goes out at this share of the key's
 * estimate (its 85th percentile), early enough to find most jobs running: their progress then
 * tells their end, and the next poll lands just after it.
 */
const EARLY_SHARE = 0.55;

/** Share of its estimate at which the status probe's first poll goes out (status-probe.ts): early, as a scout's. */
const PROBE_SHARE = 0.2;

/** Largest over smallest job size of a key above which its measured jobs wait for the scouts. */
const HOLD_SPREAD = 1.5;

/** Polls until the job's status is final and returns that status. */
export async function pollJob(options: PollJobOptions): Promise<JobStatus> {
  const { clock, estimator, key, kind, signal } = options;
  const dueFrom = Math.min(options.submittedAt ?? options.acceptedAt, options.acceptedAt);
  const stretch = options.pushedStretch ?? 1;
  const pushed = stretch !== 1;
  const scale = options.scale !== undefined && options.scale > 0 ? options.scale : 1;
  // Early first polls (room to spare) once the key's estimate is settled; never with webhooks.
  const early = () => !pushed && options.roomy !== undefined && estimator.settledMs(key) !== undefined && options.roomy() === true;
  // Settled from an earlier run's estimates before any status request was answered: one job
  // polls early to learn the job-status pool, and the rest re-plan when an answer came.
  const statusUnknown = () => !pushed && options.roomy !== undefined && options.roomy() === undefined;
  const probe = options.submittedAt === undefined && estimator.settledMs(key) !== undefined && statusUnknown() && estimator.statusProbe.claim();
  // Where a key's job sizes differ widely, its measured jobs wait for the scouts rather than poll
  // on the prior scaled by their size; jobs all of about one size poll on the prior, as
  // unmeasured jobs do.
  const hold = () => options.scale !== undefined && !pushed && estimator.sizeSpread(key) > HOLD_SPREAD;
  const firstWait = (scout: boolean) => estimator.firstDelay(key, kind, scout, scale * (probe ? PROBE_SHARE : early() ? EARLY_SHARE : 1), hold()) * stretch;
  let delay = Math.max(0, dueFrom + firstWait(!pushed) - clock.now());
  let first = true;
  const observes = options.submittedAt === undefined;
  let previous: ProgressReading | undefined;
  for (;;) {
    if (options.timeoutMs !== undefined) {
      const left = options.acceptedAt + options.timeoutMs - clock.now();
      if (left <= 0) throw new JobTimeoutError(options.requestId, options.timeoutMs);
      delay = Math.min(delay, left);
    }
    const deadline = options.deadline?.();
    if (deadline !== undefined) {
      if (!first && clock.now() >= deadline) throw new PollDeadlineError(options.requestId);
      delay = Math.max(0, Math.min(delay, deadline - clock.now()));
    }
    // A first poll planned while the key's duration is still searched for (on the prior, or on
    // one scout's reading, which overshoots) is re-planned as soon as the search ends.
    const woken = await (options.wait
      ? options.wait(delay, signal)
      : first && estimator.settledMs(key) === undefined
        ? sleepUntil(options, delay, estimator.whenSettled(key))
        : first && !probe && statusUnknown()
          ? sleepUntil(options, delay, estimator.statusProbe.answered())
          : clock.sleep(delay, signal));
    // A verified delivery of the job's final status (webhook-hints.ts): no status request needed.
    if (woken !== undefined && woken !== null && isTerminalStatus(woken.status)) {
      // It came as the job finished: an exact duration.
      if (observes && woken.status === 'done') estimator.observeEnd(key, kind, (clock.now() - options.acceptedAt) / scale);
      return woken;
    }
    if (first && woken === undefined && estimator.settledMs(key) !== undefined) {
      // Planned on the prior while the scouts measured the duration, or on an estimate that other
      // jobs' answers moved later since: wait for the first poll the estimate now puts later.
      const later = dueFrom + firstWait(false) - clock.now();
      if (later > 0) {
        delay = later;
        continue;
      }
    }
    // First polls due at once go out in waves: the rest re-plan on the first ones' answers.
    const settled = first && observes && !pushed ? estimator.settledMs(key) : undefined;
    if (settled !== undefined) {
      const wave = estimator.waves.enter(key);
      if (wave !== undefined) {
        await untilOrAborted(wave, signal);
        delay = Math.max(0, dueFrom + firstWait(true) - clock.now());
        continue;
      }
    }
    let status: JobStatus;
    try {
      status = await readStatus(options);
    } catch (error) {
      if (settled !== undefined) estimator.waves.leave(key, false);
      throw error;
    }
    // The job-status pool's limits are known now: first polls planned before re-plan.
    estimator.statusProbe.wake();
    const elapsed = clock.now() - options.acceptedAt;
    // The estimator's time: per unit of input for a measured job.
    const unitElapsed = elapsed / scale;
    const final = isTerminalStatus(status.status);
    // A failed job stopped early: its time says nothing about how long jobs take.
    if (observes && status.status !== 'error') {
      if (first) estimator.observeFirstPoll(key, kind, unitElapsed, final, status.progress, status.status === 'pending');
      else if (final) estimator.observeLaterDone(key, kind, unitElapsed);
    }
    if (settled !== undefined) estimator.waves.leave(key, (estimator.settledMs(key) ?? 0) > settled);
    first = false;
    if (final) return status;
    options.onProgress?.(status);
    const reading = status.progress !== null && status.progress > 0 && status.progress < 100 ? { elapsedMs: unitElapsed, progress: status.progress } : undefined;
    if (observes && previous !== undefined && reading !== undefined) estimator.observeReadings(key, kind, previous, reading);
    const eager = !pushed && options.roomy !== undefined && options.roomy();
    delay = estimator.nextDelay({ elapsedMs: unitElapsed, progress: status.progress, previousDelayMs: delay / scale, typicalMs: estimator.settledMs(key), previous, key, eager }, scale) * stretch;
    if (reading !== undefined) previous = reading;
  }
}

/** Sleeps `ms`, or less when `sooner` resolves meanwhile (the key's search ended, a status answer came). */
async function sleepUntil(options: PollJobOptions, ms: number, sooner: Promise<void>): Promise<void> {
  const { clock, signal } = options;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const sleep = clock.sleep(ms, controller.signal);
  // Once settled, the sleep is cut short, and its rejection is nobody's error.
  sleep.catch(() => {});
  try {
    await Promise.race([sleep, sooner]);
    if (signal?.aborted) throw signal.reason;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/**
 * One status request (the client's retries included), cut off when the step's `timeout` runs
 * out: a stalled or trickling status server ends as E_JOB_TIMEOUT within the step's timeout,
 * not after the client's own (longer) timeouts.
 */
async function readStatus(options: PollJobOptions): Promise<JobStatus> {
  const { clock, signal, timeoutMs } = options;
  const ask = (within: AbortSignal | undefined) => options.client.jobStatus(options.requestId, { ...(options.version ? { version: options.version } : {}), ...(within ? { signal: within } : {}) });
  if (timeoutMs === undefined) return ask(signal);
  const controller = new AbortController();
  const expired = new Error('the step\'s timeout ran out');
  const timer = new AbortController();
  const onOuter = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onOuter, { once: true });
  clock.sleep(Math.max(0, options.acceptedAt + timeoutMs - clock.now()), timer.signal).then(
    () => controller.abort(expired),
    () => {},
  );
  try {
    return await ask(controller.signal);
  } catch (error) {
    if (controller.signal.reason === expired && !signal?.aborted) throw new JobTimeoutError(options.requestId, timeoutMs);
    throw error;
  } finally {
    timer.abort();
    signal?.removeEventListener('abort', onOuter);
  }
}
