import type { RunEvent } from '../../engine/index.js';
import { formatCost } from '../format-cost.js';
import { formatDuration, formatRunDuration } from '../format-duration.js';
import type { ProgressTotals, RunTally } from '../files/run-tally.js';

/** `120/1000 done · 8 running · 2 failed · 0 skipped · $0.1234 spent` (` · N unknown` only when there are some; ` of $X quoted` once quoted). */
export function formatProgress(totals: ProgressTotals, quoted: number | null = null): string {
  const parts = [
    `${totals.done}/${totals.items} done`,
    `${totals.running} running`,
    `${totals.failed} failed`,
    `${totals.skipped} skipped`,
  ];
  if (totals.unknown > 0) parts.push(`${totals.unknown} unknown`);
  parts.push(formatSpend(totals.spent, quoted));
  return parts.join(' · ');
}

/** `$0.0123 spent of $0.0400 quoted` (without a quote: `$0.0123 spent`). */
export function formatSpend(spent: number, quoted: number | null): string {
  return `${formatCost(spent)} spent${quoted === null ? '' : ` of ${formatCost(quoted)} quoted`}`;
}

/** `ETA 2m 10s` in real time; `ETA estimating` before anything has settled. */
export function formatEta(remainingMs: number | undefined): string {
  return `ETA ${remainingMs === undefined ? 'estimating' : formatDuration(remainingMs)}`;
}

/** The overall line above the steps in a terminal: `12/40 done · $0.0123 spent of $0.0400 quoted · ETA 2m 10s`. */
export function formatOverall(totals: ProgressTotals, quoted: number | null, remainingMs: number | undefined): string {
  return [`${totals.done}/${totals.items} done`, formatSpend(totals.spent, quoted), formatEta(remainingMs)].join(' · ');
}

/** The line printed when the run ends: status, exit code, duration, counts, spend vs quote. */
export function formatFinalSummary(tally: RunTally): string {
  const finished = tally.finished;
  const totals = tally.totals();
  const status = finished === null ? 'stopped' : `${finished.status} (exit ${finished.exitCode})`;
  // Real time; on an accelerated clock (the emulator's) the service's virtual time beside it, labelled.
  const elapsed = finished !== null && tally.started !== null ? ` in ${formatRunDuration(finished.ts - tally.started.ts, tally.started.timeScale ?? 1)}` : '';
  const cached = totals.cached > 0 ? ` (${totals.cached} cached)` : '';
  const quoted = finished?.quoted === null || finished?.quoted === undefined ? '' : ` of ${formatCost(finished.quoted)} quoted`;
  const pending = totals.items - totals.done - totals.failed - totals.skipped - totals.unknown;
  // The engine's figure (what the service charged for this run's jobs, paid-not-saved ones
  // included), the same one report.json, JUnit and the step summary state.
  const spent = finished?.spent ?? totals.spent;
  const timedOut = totals.timedOut > 0 ? ` (${totals.timedOut} timed out: the next run adopts their jobs)` : '';
  return [
    `${status}${elapsed}: ${totals.done}/${totals.items} done${cached}`,
    `${totals.failed} failed${timedOut}`,
    `${totals.skipped} skipped`,
    `${totals.unknown} unknown`,
    ...(pending > 0 ? [`${pending} not finished`] : []),
    `${formatCost(spent)} spent${quoted}`,
  ].join(' · ');
}

type ItemProblem = Extract<RunEvent, { type: 'item-failed' | 'item-unknown' | 'item-timed-out' }>;

/** `transcribe[3] a.mp3: E_JOB_FAILED: message` for a failed or unknown item. */
export function formatItemProblem(event: ItemProblem): string {
  const label = `${event.node.step}[${event.node.index}] ${event.node.key}`;
  if (event.type === 'item-unknown') return `${label}: outcome unknown (not resubmitted): ${event.reason}`;
  if (event.type === 'item-timed-out') {
    return `${label}: ${event.error.code}: ${oneLine(event.error.message)}; it still runs at the service (charged when it ends): the next run adopts its result, never submits it again unless --resubmit-timed-out`;
  }
  return `${label}: ${event.error.code}: ${oneLine(event.error.message)}`;
}

/** Folds line breaks so one message stays one log line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}
