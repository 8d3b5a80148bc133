/**
 * What `deflow run` says about items it did not finish for a reason the user should act on:
 * items left out because their inputs failed the load-time checks (`--keep-going`), and
 * pools whose daily window deferred items, with when to resume.
 */
import type { DeferredPool } from '../../../engine/index.js';
import { formatErrors, type WorkflowError } from '../../../workflow/index.js';

/** `left out (invalid input): 2 item(s)` and one located line per item (100 at most, then a count). */
export function excludedLines(excluded: readonly WorkflowError[]): string[] {
  if (excluded.length === 0) return [];
  return [`keep going: ${excluded.length} item(s) left out, their inputs failed the load-time checks (they and what reads them are skipped; when everything else succeeds the run exits 6):`, ...formatErrors(excluded).map((line) => `  ${line}`)];
}

/** One line per pool whose daily window deferred items, and when a run can finish them. */
export function deferredLines(deferred: readonly DeferredPool[], now: number, resumeCommand: string | null, virtual: boolean): string[] {
  if (deferred.length === 0) return [];
  const lines = deferred.map((pool) => {
    const until = pool.resetAt === null ? 'its reset time is unknown' : `until ${new Date(pool.resetAt).toISOString()} (in ${formatWait(pool.resetAt - now)}${virtual ? ' virtual' : ''})`;
    return `daily limit of ${pool.pool} used up: ${pool.items} item(s) deferred ${until}; the other pools went on`;
  });
  const latest = Math.max(...deferred.map((pool) => pool.resetAt ?? Number.NaN));
  const when = Number.isFinite(latest) ? `after ${new Date(latest).toISOString()}` : 'later';
  if (resumeCommand !== null) lines.push(`resume ${when} (nothing done is paid again; a run before then sends nothing to a used-up pool): ${resumeCommand}`);
  else lines.push(`run it again ${when} to finish the deferred items (add --wait-daily to wait instead)`);
  return lines;
}

/** `3 h 12 min`, `42 s`. */
export function formatWait(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
}
