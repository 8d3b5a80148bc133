/** What `deflow status` does (status.ts defines the command): reads a run's journal and reports its progress. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { attributeSpend, chargedJobs, readInvocations, readRunState } from '../../../engine/index.js';
import type { Quote } from '../../../engine/index.js';
import { formatCost, formatTotal } from '../../../report/index.js';
import { type RunProgress, summariseProgress } from '../../../engine/index.js';
import { RESUMABLE_STATUSES, type RunSummary, runPaths } from '../../../engine/index.js';
import type { CliIO } from '../../../common/index.js';
import { EXIT, roundUsd, sumUsd } from '../../../common/index.js';
import { findRun } from '../../find-run.js';
import { formatResumeCommand } from '../../resume-command.js';
import { runQueueStatus } from './status-queue.js';
import { runTimes, sessionTimes } from './run-dates.js';
import { listStatus } from './status-list.js';
import { formatTable } from '../../text-table.js';
import { optionFlags } from '../run/run-recall.js';

export interface StatusFlags {
  readonly stateDir?: string;
  readonly json?: boolean;
  readonly queue?: string;
  readonly apiKeyFile?: string;
}

/** The status of a run as `--json` prints it. */
export interface RunStatusJson {
  /** 2: `unknowns[].requestId` became `request_id`. */
  readonly format_version: 2;
  readonly run_id: string;
  /** `running`, `crashed`, or the status the run finished with. */
  readonly status: RunSummary['status'];
  /** A live process is writing the run now. */
  readonly active: boolean;
  readonly workflow: string | null;
  /** Real wall time (also for a run on the emulator's accelerated clock). */
  readonly started_at: string | null;
  readonly finished_at: string | null;
  /** A run on the emulator's accelerated clock: its own (virtual) dates, ahead of the real ones. */
  readonly emulator_time?: { readonly started_at: string | null; readonly finished_at: string | null };
  /**
   * Per step: the counts, `cost` (USD charged in every session), `cost_quoted` (the point the
   * run's quote gave the step, or null when it had none) and `quoted_unknown_items` (items that
   * quote could not price: `cost_quoted` is then a lower bound).
   */
  readonly steps: readonly (RunProgress['steps'][number] & { readonly not_started: number | null; readonly cost_quoted: number | null; readonly quoted_unknown_items: number })[];
  /** The whole run's cost over every session (and per session), against its quote when it had one. */
  readonly cost: {
    readonly actual: number;
    readonly quoted: { readonly point: number; readonly high: number; readonly unknown_items: number } | null;
    readonly invocations: readonly {
      readonly index: number;
      readonly started_at: string | null;
      readonly finished_at: string | null;
      readonly status: string;
      readonly cost_actual: number;
      /** A session on the emulator's accelerated clock: its own (virtual) dates, beside the real ones. */
      readonly emulator_time?: { readonly started_at: string | null; readonly finished_at: string | null };
    }[];
  };
  readonly unknowns: readonly { readonly node: string; readonly reason: string; readonly request_id: string | null }[];
  /** Items whose job ran past its step's timeout, with their job: the next run polls it and adopts its result. */
  readonly timed_out: readonly { readonly node: string; readonly reason: string; readonly request_id: string }[];
  /** Items whose submission answer was lost and whose job a verified webhook delivery naming them told (adopted, never submitted again). */
  readonly adopted: readonly { readonly node: string; readonly request_id: string }[];
  readonly torn_tail: boolean;
  /** The command that resumes the run, when a resume has anything to do. */
  readonly resume_command: string | null;
}

export async function runStatus(run: string | undefined, flags: StatusFlags, io: CliIO): Promise<number> {
  if (flags.queue !== undefined) return runQueueStatus(run, { ...flags, queue: flags.queue }, io);
  if (run === undefined && flags.stateDir === undefined) return listStatus(flags.json === true, io);
  const { stateDir, summary } = await findRun(run, flags.stateDir, io.cwd);
  // A queue run keeps its items in the queue's Redis; its run.json here says which queue.
  const queueUrl = summary.meta?.options?.queue ?? null;
  if (queueUrl !== null && !existsSync(runPaths(stateDir, summary.runId).journal)) {
    if (!flags.json) io.stdout.write(`run ${summary.runId}: ${summary.status} (a queue run on ${queueUrl})\n`);
    const real = summary.meta?.real_started_at === undefined ? undefined : { startedAt: summary.meta.real_started_at, finishedAt: summary.meta.real_finished_at ?? null };
    return runQueueStatus(summary.runId, { ...flags, queue: queueUrl }, io, real);
  }
  const replayed = await readRunState(runPaths(stateDir, summary.runId).journal);
  const progress = summariseProgress(replayed);
  const workflow = summary.meta?.workflow ?? replayed.run?.workflow ?? null;
  const canResume = !summary.active && workflow !== null && (RESUMABLE_STATUSES.has(summary.status) || progress.resumable > 0);
  const dir = runPaths(stateDir, summary.runId).dir;
  const quote = await readRunQuote(dir);
  const quoted = new Map(quote?.steps.map((step) => [step.id, step.subtotal]) ?? []);
  const sessions = readInvocations(dir);
  const entries = sessions.length > 0 ? sessions : [{ started_at: replayed.run?.started_at ?? 0, finished_at: null, status: 'unrecorded' }];
  const accelerated = summary.meta?.real_started_at !== undefined;
  const invocations = attributeSpend(entries, chargedJobs(replayed)).map((e, i, all) => ({
    index: i + 1,
    ...sessionTimes(entries[i]!, e, accelerated ? (i === 0 ? summary.meta?.real_started_at : undefined) : null),
    status: summary.active && i === all.length - 1 ? 'running' : e.status,
    cost_actual: e.spent,
  }));
  const steps = progress.steps.map((step) => {
    const subtotal = quoted.get(step.step);
    const items = summary.meta?.items?.[step.step];
    const journalled = step.done + step.running + step.unknown + step.failed + step.skipped + step.withdrawn + step.unsaved + step.deferred + step.timed_out;
    const notStarted = items === undefined ? null : Math.max(0, items - journalled);
    return { ...step, not_started: notStarted, cost: roundUsd(step.cost), cost_quoted: subtotal?.point ?? null, quoted_unknown_items: subtotal?.unknown_items ?? 0 };
  });
  const status: RunStatusJson = {
    format_version: 2,
    run_id: summary.runId,
    status: summary.status,
    active: summary.active,
    workflow,
    ...runTimes(summary.meta, replayed.run?.started_at),
    steps,
    cost: {
      actual: sumUsd(steps.map((step) => step.cost)),
      quoted: quote === undefined ? null : { point: quote.total.point, high: quote.total.high, unknown_items: quote.total.unknown_items },
      invocations,
    },
    unknowns: progress.unknowns.map(({ node, reason, requestId }) => ({ node, reason, request_id: requestId })),
    timed_out: progress.timedOut.map(({ node, reason, requestId }) => ({ node, reason, request_id: requestId })),
    adopted: progress.adopted.map(({ node, requestId }) => ({ node, request_id: requestId })),
    torn_tail: replayed.tornTail,
    resume_command: canResume
      ? formatResumeCommand({
          workflow,
          runId: summary.runId,
          stateDir,
          inputs: replayed.run?.inputs ?? {},
          cwd: io.cwd,
          // The options the run was run with (also what a plain `deflow run` of the workflow resumes it with).
          extra: summary.meta?.options === undefined ? [] : optionFlags(summary.meta.options, io.cwd),
        })
      : null,
  };
  if (flags.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else io.stdout.write(`${formatStatus(status).join('\n')}\n`);
  return EXIT.ok;
}

/** The human form: a header, a table of steps, the unknown items and the resume command. */
export function formatStatus(status: RunStatusJson): string[] {
  const state = status.active ? `${status.status} (a process is writing it now)` : status.status;
  const lines = [`run ${status.run_id}: ${state}`];
  if (status.status === 'left-out') lines.push('left out: inputs that failed the load-time checks were skipped; every other item is done (exit 6)');
  if (status.workflow !== null) lines.push(`workflow: ${status.workflow}`);
  if (status.started_at !== null) {
    const emulator = status.emulator_time;
    const beside = emulator === undefined ? '' : ` (emulator time: started ${emulator.started_at ?? '—'}${emulator.finished_at === null ? '' : `, finished ${emulator.finished_at}`})`;
    lines.push(`started: ${status.started_at}${status.finished_at === null ? '' : `, finished: ${status.finished_at}`}${beside}`);
  }
  if (status.torn_tail) lines.push('journal: its last record was torn by a crash and is ignored');
  lines.push('');
  if (status.steps.length === 0) lines.push('no item has been journalled yet');
  else {
    // Items waiting for a used-up daily window get their own column, only when there are some.
    const deferred = status.steps.some((s) => s.deferred > 0);
    const unsaved = status.steps.some((s) => s.unsaved > 0);
    const timedOut = status.steps.some((s) => s.timed_out > 0);
    const notStarted = status.steps.some((s) => (s.not_started ?? 0) > 0);
    const rows = status.steps.map((s) => [
      s.step,
      String(s.done),
      String(s.cached),
      String(s.running),
      ...(deferred ? [String(s.deferred)] : []),
      String(s.unknown),
      String(s.failed),
      ...(unsaved ? [String(s.unsaved)] : []),
      ...(timedOut ? [String(s.timed_out)] : []),
      String(s.skipped + s.withdrawn),
      ...(notStarted ? [String(s.not_started ?? '—')] : []),
      formatCost(s.cost),
      quotedCell(s),
    ]);
    lines.push(formatTable(['step', 'done', 'cached', 'running', ...(deferred ? ['deferred'] : []), 'unknown', 'failed', ...(unsaved ? ['paid, not saved'] : []), ...(timedOut ? ['timed out'] : []), 'skipped', ...(notStarted ? ['not started'] : []), 'spent', 'quoted'], rows));
    if (unsaved) lines.push('', 'paid, not saved: these jobs are paid for; the next run of the workflow fetches their results again and never submits them again');
  }
  const { cost } = status;
  const quoted = cost.quoted === null ? 'not quoted' : `quoted ${formatTotal(cost.quoted)}`;
  lines.push('', `cost: ${formatCost(cost.actual)} spent over ${cost.invocations.length} session${cost.invocations.length === 1 ? '' : 's'}; ${quoted}`);
  if (cost.invocations.length > 1) {
    for (const session of cost.invocations) {
      const emulator = session.emulator_time === undefined ? '' : `, emulator time ${session.emulator_time.started_at ?? '?'}`;
      lines.push(`  session ${session.index} (${session.started_at ?? '?'}${emulator}, ${session.status}): ${formatCost(session.cost_actual)}`);
    }
  }
  if (status.unknowns.length > 0) {
    lines.push('', `unknown items (${status.unknowns.length}): the service may or may not have created their jobs; deflow never submits them again unless --resubmit-unknown is given`);
    for (const unknown of status.unknowns) lines.push(`  ${unknown.node}: ${unknown.reason}`);
  }
  if (status.adopted.length > 0) {
    lines.push('', `adopted items (${status.adopted.length}): their submission's answer was lost; a signed webhook delivery named the item and its job, which deflow polls and saves (never submitted again)`);
    for (const item of status.adopted) lines.push(`  ${item.node}: job ${item.request_id}`);
  }
  if (status.timed_out.length > 0) {
    lines.push('', `timed-out items (${status.timed_out.length}): their jobs ran past the step's timeout and may still finish (and be charged); the next run polls them and adopts their results, and submits them again only with --resubmit-timed-out`);
    for (const item of status.timed_out) lines.push(`  ${item.node}: job ${item.request_id}`);
  }
  if (status.resume_command !== null) lines.push('', `resume: ${status.resume_command}`);
  return lines;
}

/** A step's quoted cost: `—` when not quoted, a lower bound when items had no price. */
function quotedCell(step: RunStatusJson['steps'][number]): string {
  if (step.cost_quoted === null) return '—';
  if (step.quoted_unknown_items === 0) return formatCost(step.cost_quoted);
  return step.cost_quoted === 0 ? `${step.quoted_unknown_items} unpriced` : `≥ ${formatCost(step.cost_quoted)} (${step.quoted_unknown_items} unpriced)`;
}

/** The quote the run was started with (`deflow run` keeps it beside the journal), if any. */
async function readRunQuote(dir: string): Promise<Quote | undefined> {
  try {
    const quote = JSON.parse(await readFile(join(dir, 'quote.json'), 'utf8')) as Partial<Quote>;
    return quote.format_version === 2 && Array.isArray(quote.steps) && typeof quote.total === 'object' ? (quote as Quote) : undefined;
  } catch {
    return undefined;
  }
}
