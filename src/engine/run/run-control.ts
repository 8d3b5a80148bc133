/**
 * Stopping a run. The first reason wins and stops new submissions at once. Submissions still
 * waiting for the rate governor are cancelled (nothing was sent for them), except on a budget
 * stop: those already hold a reservation within the budget. Jobs already submitted keep
 * being polled until `abandonPolls` (the end of the interrupt grace period).
 *
 * Jobs do not all share one abort signal: an EventTarget with thousands of listeners makes
 * every add and remove slow, and every wait of every job adds one. A few dozen share each.
 */
import { setMaxListeners } from 'node:events';
import { DeflowError } from '../../common/index.js';
import type { StopReason } from './job-errors.js';

/** A job's abort signal, and how to let go of it when the job is over. */
export interface JobSignal {
  readonly signal: AbortSignal;
  release(): void;
}

interface SharedSignal {
  readonly controller: AbortController;
  handedOut: number;
  users: number;
}

/** Jobs that share one poll signal (each adds at most a couple of listeners to it). */
const JOBS_PER_POLL_SIGNAL = 32;

export class RunControl {
  reason: StopReason | null = null;
  /** Clock ms when jobs still in flight will be given up (set by an interrupt). */
  pollDeadline: number | undefined;
  /** The error behind the stop (a refusal, a daily limit, a recorder failure). */
  error: unknown;
  /** No submission may start any more (and those waiting were cancelled). */
  submissionsStopped = false;
  pollsAbandoned = false;
  private readonly submissions = new Set<() => void>();
  private readonly polls = new Set<SharedSignal>();
  private current: SharedSignal | undefined;
  private readonly listeners: (() => void)[] = [];

  get stopping(): boolean {
    return this.reason !== null;
  }

  stop(reason: StopReason, error?: unknown): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.error = error;
    if (reason !== 'over-budget') {
      this.submissionsStopped = true;
      for (const cancel of [...this.submissions]) cancel();
      this.submissions.clear();
    }
    for (const listener of this.listeners.splice(0)) listener();
  }

  /** Calls `cancel` if submissions stop before the returned function is called. */
  watchSubmissions(cancel: (reason: Error) => void): () => void {
    const call = (): void => cancel(stopped(`run stopped (${this.reason})`));
    if (this.submissionsStopped) call();
    else this.submissions.add(call);
    return () => this.submissions.delete(call);
  }

  /** A signal that aborts when submissions stop (a price asked just before one). */
  submissionSignal(): JobSignal {
    const controller = new AbortController();
    const release = this.watchSubmissions((reason) => controller.abort(reason));
    return { signal: controller.signal, release };
  }

  /**
   * A signal that aborts when in-flight jobs are given up; release it when the job is over.
   * A few jobs share each signal: creating one costs more than a job's own bookkeeping.
   */
  pollSignal(): JobSignal {
    let shared = this.current;
    if (shared === undefined || shared.handedOut >= JOBS_PER_POLL_SIGNAL) {
      shared = { controller: new AbortController(), handedOut: 0, users: 0 };
      setMaxListeners(0, shared.controller.signal);
      if (this.pollsAbandoned) shared.controller.abort(stopped('stopped polling'));
      this.polls.add(shared);
      this.current = shared;
    }
    const entry = shared;
    entry.handedOut++;
    entry.users++;
    let released = false;
    return {
      signal: entry.controller.signal,
      release: () => {
        if (released) return;
        released = true;
        if (--entry.users === 0 && entry.handedOut >= JOBS_PER_POLL_SIGNAL) this.polls.delete(entry);
      },
    };
  }

  /** Gives up polling jobs still in flight (their state stays `running`, resumable). */
  abandonPolls(): void {
    this.pollsAbandoned = true;
    for (const entry of this.polls) entry.controller.abort(stopped('stopped polling'));
  }

  /** Calls `listener` once when the run stops. */
  onStop(listener: () => void): void {
    if (this.reason !== null) listener();
    else this.listeners.push(listener);
  }
}

function stopped(message: string): DeflowError {
  return new DeflowError('E_RUN_STOPPED', message);
}
