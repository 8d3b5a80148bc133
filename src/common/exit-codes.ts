/**
 * The one place that decides a command's exit code (README, "Exit codes"): from the error that
 * stopped it ({@link ERROR_EXIT_CODES}, read by `exitCodeFor` in deflow-error.ts), from a run's final status ({@link RUN_STATUS_EXIT}), from a
 * quote's budget verdict ({@link QUOTE_VERDICT_EXIT}), or from the signal that ended it. A new
 * exit code is an entry of {@link EXIT}; a new error code, run status or verdict is one entry of
 * its table, and the compiler refuses a value that is not an {@link ExitCode}.
 */

/** Exit codes of every command (documented in the README). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** Finished, but with failed or unknown items; or a request failed. */
  failed: 1,
  /** Invalid workflow, config or usage, items the service refuses to price (422, `deflow quote`), or another deflow run holds the state folder: nothing was sent. */
  usage: 2,
  /** Refused by the service before the first submission (auth, permission, balance). */
  refused: 3,
  /** Over budget (--max-cost or the balance). */
  overBudget: 4,
  /** Stopped by a daily rate limit (resumable). */
  dailyLimit: 5,
  /**
   * Finished: every item that could run succeeded, and only inputs refused at validation were
   * left out (`--keep-going`, `defaults.keep_going`). The action fails the step on it unless
   * `allow-left-out: true`.
   */
  leftOut: 6,
  /** A bug in deflow (unexpected error). */
  internal: 70,
  /** Interrupted (SIGINT). */
  interrupted: 130,
  /** Terminated (a second SIGTERM ends the process at once: 128 + 15). */
  terminated: 143,
} as const;

/** One of the exit codes in {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Every code a `DeflowError` carries, with the exit code a command ends with when that error
 * stops it. Callers branch on the code, never on message text. A new code is one entry here;
 * the compiler refuses any other string.
 */
export const ERROR_EXIT_CODES = {
  // The service answered with an error (client/errors, one class per code).
  E_API: EXIT.failed,
  E_API_AUTH: EXIT.refused,
  E_API_BALANCE: EXIT.refused,
  E_API_DAILY_LIMIT: EXIT.dailyLimit,
  E_API_KEY_LIMIT: EXIT.refused,
  E_API_NOT_FOUND: EXIT.failed,
  E_API_PERMISSION: EXIT.refused,
  E_API_RATE_LIMITED: EXIT.failed,
  E_API_REQUEST: EXIT.failed,
  E_API_RESPONSE: EXIT.failed,
  E_API_SERVER: EXIT.failed,
  E_API_VALIDATION: EXIT.failed,
  // A run's account check before it starts (cli/actions/run/account-check.ts): the key, the balance.
  E_AUTH: EXIT.refused,
  E_BALANCE_LOW: EXIT.refused,
  // Transport: the request or a transfer did not complete.
  E_NETWORK: EXIT.failed,
  E_RESPONSE_TOO_LARGE: EXIT.failed,
  E_TRANSFER: EXIT.failed,
  E_TRUNCATED: EXIT.failed,
  E_UNSAFE_URL: EXIT.failed,
  // Usage: a flag, an option or the environment is wrong; nothing was sent.
  E_USAGE_BASE_URL: EXIT.usage,
  E_USAGE_ENV_FILE: EXIT.usage,
  E_USAGE_INPUT: EXIT.usage,
  E_USAGE_KEY_FILE: EXIT.usage,
  E_USAGE_KEY_FLAG: EXIT.usage,
  E_USAGE_KEY_FORMAT: EXIT.usage,
  E_USAGE_NO_KEY: EXIT.usage,
  E_USAGE_NO_EVENTS: EXIT.usage,
  E_USAGE_NO_RUN: EXIT.usage,
  E_USAGE_OPTION: EXIT.usage,
  E_USAGE_PORT: EXIT.usage,
  E_USAGE_QUEUE_URL: EXIT.usage,
  E_USAGE_RUN_ID: EXIT.usage,
  E_USAGE_TASK: EXIT.usage,
  E_USAGE_TLS: EXIT.usage,
  E_USAGE_V1: EXIT.usage,
  E_USAGE_WEBHOOK_LISTEN: EXIT.usage,
  E_USAGE_WEBHOOK_URL: EXIT.usage,
  // Input files and configuration.
  E_CONFIG_PARSE: EXIT.usage,
  E_CONFIG_READ: EXIT.usage,
  E_CONFIG_SCHEMA: EXIT.usage,
  E_INPUT_FILE: EXIT.usage,
  E_INPUT_FILE_IN_JSON: EXIT.usage,
  E_INPUT_QUOTE: EXIT.usage,
  E_INIT_EXISTS: EXIT.usage,
  // The workflow (workflow/workflow-error.ts names each one).
  E_WORKFLOW_CYCLE: EXIT.usage,
  E_WORKFLOW_EXPRESSION: EXIT.usage,
  E_WORKFLOW_FIELD: EXIT.usage,
  E_WORKFLOW_FILE: EXIT.usage,
  E_WORKFLOW_FOR_EACH: EXIT.usage,
  E_WORKFLOW_INPUT: EXIT.usage,
  E_WORKFLOW_INPUT_FILE: EXIT.usage,
  E_WORKFLOW_INVALID: EXIT.usage,
  E_WORKFLOW_KIND: EXIT.usage,
  E_WORKFLOW_LIMIT: EXIT.usage,
  E_WORKFLOW_MODEL: EXIT.usage,
  E_WORKFLOW_REF: EXIT.usage,
  E_WORKFLOW_REQUIRED: EXIT.usage,
  E_WORKFLOW_SAVE_PATH: EXIT.usage,
  E_WORKFLOW_SCHEMA: EXIT.usage,
  E_WORKFLOW_TASK: EXIT.usage,
  E_WORKFLOW_TOO_LARGE: EXIT.usage,
  E_WORKFLOW_YAML: EXIT.usage,
  // Jobs and their results.
  E_INTERNAL: EXIT.internal,
  E_JOB_FAILED: EXIT.failed,
  E_JOB_TIMEOUT: EXIT.failed,
  E_JOB_UNKNOWN: EXIT.failed,
  E_POLL_DEADLINE: EXIT.failed,
  E_RESULT_JSON: EXIT.failed,
  E_RESULT_LOST: EXIT.failed,
  E_RESULT_MISSING: EXIT.failed,
  E_RESULT_NOT_DOWNLOADED: EXIT.failed,
  E_UPSTREAM_TOO_LARGE: EXIT.failed,
  E_SAVE_NOTHING: EXIT.failed,
  E_RUN_STOPPED: EXIT.failed,
  E_QUOTE_UNAVAILABLE: EXIT.failed,
  E_INTERRUPTED: EXIT.interrupted,
  // Durable state: journal, lock, cache, reports.
  E_CACHE_BLOB_MISSING: EXIT.failed,
  E_CACHE_KEY: EXIT.failed,
  E_JOURNAL_CLOSED: EXIT.failed,
  E_JOURNAL_CORRUPT: EXIT.failed,
  E_JOURNAL_EXISTS: EXIT.failed,
  E_JOURNAL_MISSING: EXIT.failed,
  E_JOURNAL_VERSION: EXIT.failed,
  E_JOURNAL_WRITE: EXIT.failed,
  E_STATE_DIR: EXIT.usage,
  E_STATE_LOCKED: EXIT.usage,
  E_REPORT_WRITE: EXIT.failed,
  E_INIT_WRITE: EXIT.failed,
  // Any file deflow writes (common/durable-fs.ts): named with its path.
  E_DISK_FULL: EXIT.failed,
  E_OUTPUT_NOT_FILE: EXIT.failed,
  E_OUTPUT_NOT_WRITABLE: EXIT.failed,
  // Distributed mode (engine/queue): Redis, the queue's runs, the workers.
  E_QUEUE_CONNECT: EXIT.failed,
  E_QUEUE_LOCK_LOST: EXIT.failed,
  E_QUEUE_RESULT_FETCH: EXIT.failed,
  E_QUEUE_RUN: EXIT.failed,
  E_QUEUE_WORKER: EXIT.failed,
  E_QUEUE_WORKFLOW: EXIT.failed,
  // The emulator.
  E_EMULATOR_LISTEN: EXIT.failed,
  E_EMULATOR_PORT_IN_USE: EXIT.failed,
} as const satisfies Record<`E_${string}`, ExitCode>;

/**
 * A run's final status (engine events, the report's `status`) and its exit code. The engine
 * decides the status (engine/run/run-outcome.ts); this table alone turns it into a number.
 */
export const RUN_STATUS_EXIT = {
  done: EXIT.ok,
  'left-out': EXIT.leftOut,
  failed: EXIT.failed,
  refused: EXIT.refused,
  'over-budget': EXIT.overBudget,
  'daily-limit': EXIT.dailyLimit,
  interrupted: EXIT.interrupted,
} as const satisfies Record<string, ExitCode>;

/** How a run ended (`run-finished`'s `status`). */
export type RunStatus = keyof typeof RUN_STATUS_EXIT;

/**
 * What a budget gate concludes, and the exit code of `deflow quote` (and of `deflow run
 * --dry-run`) with that verdict: `within` the cap or `no-budget` pass; `over-budget` (the high
 * end is above the cap), `unpriced` (items without a price, no `--allow-unpriced`) and
 * `over-balance` (the point is above the balance) are exit 4; `unavailable` (prices could not be
 * obtained, so no verdict was reached) is exit 1.
 */
export const QUOTE_VERDICT_EXIT = {
  within: EXIT.ok,
  'no-budget': EXIT.ok,
  unavailable: EXIT.failed,
  'over-budget': EXIT.overBudget,
  unpriced: EXIT.overBudget,
  'over-balance': EXIT.overBudget,
} as const satisfies Record<string, ExitCode>;

/** A budget gate's verdict (a quote's `verdict`). */
export type BudgetVerdict = keyof typeof QUOTE_VERDICT_EXIT;

/** The exit code of a run that ended with `status`. */
export function exitCodeForRun(status: RunStatus): ExitCode {
  return RUN_STATUS_EXIT[status];
}

/** The exit code of a quote (or a dry run) with `verdict`. */
export function exitCodeForQuote(verdict: BudgetVerdict): ExitCode {
  return QUOTE_VERDICT_EXIT[verdict];
}

/** The exit code of a process ended at once by a second signal: 130 for SIGINT, 143 for SIGTERM. */
export function exitCodeForSignal(signal: 'SIGINT' | 'SIGTERM'): ExitCode {
  return signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
}
