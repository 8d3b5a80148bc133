/** Exit codes of every command (documented in the README). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** Finished, but with failed or unknown items; or a request failed. */
  failed: 1,
  /** Invalid workflow, config or usage: nothing was sent. */
  usage: 2,
  /** Refused by the service before the first submission (auth, permission, balance). */
  refused: 3,
  /** Over budget (--max-cost or the balance). */
  overBudget: 4,
  /** Stopped by a daily rate limit (resumable). */
  dailyLimit: 5,
  /** A bug in deflow (unexpected error). */
  internal: 70,
  /** Interrupted (SIGINT). */
  interrupted: 130,
} as const;

/** One of the exit codes in {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
