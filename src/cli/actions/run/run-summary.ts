/**
 * What `deflow run` prints around a run (run-action.ts runs it): the resumed run it opened, a
 * dry run's plan and quote, the summary at the end, why a budget stopped it and a cap to
 * resume with.
 */
import { relative, resolve } from 'node:path';
import { exitCodeForQuote } from '../../../common/index.js';
import type { CliIO } from '../../../common/index.js';
import type { DurableRun, Quote, RunOutcome } from '../../../engine/index.js';
import { formatCost, renderQuoteTable } from '../../../report/index.js';
import { formatPlan, type JobGraph } from '../../../workflow/index.js';
import type { RunFlags } from './run-flags.js';
import type { RunSession } from './run-session.js';

/** `--dry-run`: the plan and the quote; nothing is submitted. */
export async function dryRun(io: CliIO, flags: RunFlags, graph: JobGraph, quote: Quote, plan: Parameters<typeof formatPlan>[0] | undefined): Promise<number> {
  if (flags.json) io.stdout.write(`${JSON.stringify({ plan: plan ?? null, quote })}\n`);
  else {
    if (plan) io.stdout.write(`${formatPlan(plan, io.cwd).join('\n')}\n\n`);
    io.stdout.write(renderQuoteTable(quote));
    io.stderr.write(`dry run: nothing was submitted (${graph.nodeCount} jobs planned)\n`);
  }
  if (quote.prices_unavailable) io.stderr.write(`deflow: cannot price the workflow: ${quote.prices_unavailable.message}\n`);
  return exitCodeForQuote(quote.verdict);
}

/** A cap that lets the rest of the run go: the quote's high end for the whole run, or what was about to be held. */
export function suggestCap(outcome: RunOutcome): number {
  const refused = outcome.budget?.refused;
  // Whatever was in flight at the refusal has settled into `spent` by now.
  const atRefusal = refused ? outcome.spent + refused.amount : 0;
  const quoted = outcome.quote ? outcome.quote.total.high : 0;
  const cap = Math.max(atRefusal, quoted, outcome.budget?.maxCost ?? 0);
  const step = cap >= 0.01 ? 100 : 10_000;
  return Math.ceil(cap * step * (1 + 1e-9)) / step;
}

export function printSummary(io: CliIO, flags: RunFlags, graph: JobGraph, outcome: RunOutcome, session: RunSession): void {
  const lines: string[] = [];
  if (outcome.error !== undefined && outcome.status !== 'interrupted') {
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    lines.push(`deflow: ${session.client.redact(message)}`);
  }
  // Why the budget stopped the run is said even with --quiet, like an error.
  lines.push(...budgetLines(outcome));
  if (flags.quiet) {
    if (lines.length > 0) io.stderr.write(`${lines.join('\n')}\n`);
    return;
  }
  if (outcome.counts.done > 0 && graph.workflow.steps.some((s) => s.save !== undefined)) {
    lines.push(`outputs: ${relative(io.cwd, graph.outputDir) || '.'}`);
  }
  if (flags.report !== undefined) lines.push(`report: ${relative(io.cwd, flags.report) || flags.report}`);
  if (flags.html !== undefined) lines.push(`html: ${relative(io.cwd, resolve(io.cwd, flags.html)) || flags.html}`);
  if (outcome.counts.unknown > 0) {
    lines.push(
      `${outcome.counts.unknown} item(s) unknown: the service may or may not have their jobs (it has no idempotency key), so they are not submitted again; ` +
        '`deflow status` lists them, --resubmit-unknown submits them knowingly',
    );
  }
  if (outcome.counts.timedOut > 0) {
    lines.push(
      `${outcome.counts.timedOut} item(s) timed out: their jobs still run at the service and are charged when they end; ` +
        'run the workflow again to poll them and adopt their results (never submitted again; `deflow status` lists them, --resubmit-timed-out submits them anew and may pay twice)',
    );
  }
  const { pending, running } = outcome.counts;
  if (outcome.status !== 'done' && outcome.status !== 'left-out' && outcome.status !== 'failed' && pending > 0) {
    const where = flags.report ? `their request ids are in ${flags.report}` : 'their request ids are in the item-submitted events (--json, --report)';
    const still = running > 0 ? `, ${running} still running on the service (${where})` : '';
    lines.push(`stopped (${outcome.status}): ${pending - running} item(s) not started${still}`);
  }
  if (lines.length > 0) io.stderr.write(`${lines.join('\n')}\n`);
}

/** Why an over-budget run stopped: the gate before it started, or the submission the cap refused. */
function budgetLines(outcome: RunOutcome): string[] {
  const budget = outcome.budget;
  if (outcome.status !== 'over-budget' || budget === null) return [];
  const cap = formatCost(budget.maxCost);
  const refused = budget.refused;
  if (refused === null) return [`over budget: refused to start, nothing was submitted: ${budget.reason ?? `the quote is above the cap of ${cap}`}`];
  const { pending, running } = outcome.counts;
  return [
    `over budget: ${refused.node.step}[${refused.node.index}] (${refused.node.key}) was not submitted: holding ${formatCost(refused.amount)} (${refused.how}) ` +
      `on top of ${formatCost(refused.spent)} spent and ${formatCost(refused.reserved)} reserved would pass the cap of ${cap}`,
    `nothing was submitted past the cap: the jobs in flight were settled; spent ${formatCost(outcome.spent)} of ${cap}` +
      `${outcome.spentEarlier > 0 ? ` (${formatCost(outcome.spentEarlier)} of it in earlier sessions)` : ''}; ${pending - running} item(s) left undone` +
      `${running > 0 ? `, ${running} still running on the service` : ''}`,
  ];
}

/** What the journal found, for stderr: a new run, or a resumed one and what it picks up. */
export function describeOpened(durable: DurableRun): string {
  const lines = [...durable.notices];
  const plan = durable.plan;
  if (plan !== null) {
    const c = plan.counts;
    const parts = [`${c.done} done`, `${c.submitted} in flight (polled, not resubmitted)`];
    if (c.unknown > 0) parts.push(`${c.unknown} unknown (not resubmitted)`);
    if (c.resubmitted > 0) parts.push(`${c.resubmitted} unknown resubmitted (--resubmit-unknown)`);
    if (c.timedOut > 0) parts.push(`${c.timedOut} timed out earlier, polled and adopted (not resubmitted)`);
    if (c.resubmittedTimedOut > 0) parts.push(`${c.resubmittedTimedOut} timed out, resubmitted (--resubmit-timed-out)`);
    if (c.retried > 0) parts.push(`${c.retried} failed, retried`);
    lines.unshift(`resuming run ${durable.runId}: ${parts.join(', ')}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
