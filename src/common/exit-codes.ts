import { isDeflowError } from './deflow-error.js';

/** Exit codes of every command (documented in the README). */
export const EXIT = {
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

const BY_CODE: ReadonlyArray<[RegExp, number]> = [
  [/^E_(USAGE|WORKFLOW|CONFIG|INPUT)/, EXIT.usage],
  [/^E_API_(AUTH|PERMISSION|BALANCE|KEY_LIMIT)/, EXIT.refused],
  [/^E_BUDGET/, EXIT.overBudget],
  [/^E_API_DAILY_LIMIT/, EXIT.dailyLimit],
  [/^E_INTERRUPTED/, EXIT.interrupted],
];

/** The exit code for an error a command threw. */
export function exitCodeFor(error: unknown): number {
  if (!isDeflowError(error)) return EXIT.internal;
  for (const [pattern, code] of BY_CODE) if (pattern.test(error.code)) return code;
  return EXIT.failed;
}
