/**
 * `deflow status [RUN] [--state-dir DIR] [--json]`: a run's progress, read from its journal
 * (the latest run when RUN is omitted; RUN may also be a workflow file, for its latest run).
 * Counts per step, every `unknown` item with its reason, and the command that resumes it.
 * Works while the run is going: the journal is only read.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DeflowError } from '../common/index.js';
import { readJournal, replayRunState } from '../engine/index.js';
import { type RunProgress, summariseProgress } from '../engine/index.js';
import { listRuns, RESUMABLE_STATUSES, type RunSummary, resolveStateDir, runPaths, STATE_DIR_NAME } from '../engine/index.js';
import type { CliIO } from '../common/index.js';
import { EXIT } from '../common/index.js';
import type { ActionWrapper } from './main.js';
import { formatResumeCommand } from './resume-command.js';
import { formatTable } from './text-table.js';

interface StatusFlags {
  readonly stateDir?: string;
  readonly json?: boolean;
}

/** Adds `deflow status`. */
export function registerStatusCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('status')
    .description("a run's progress from its journal: items per step, unknown items, how to resume")
    .argument('[run]', 'run id, or a workflow file for its latest run (default: the latest run)')
    .option('--state-dir <dir>', `state folder (default: ${STATE_DIR_NAME} here, or beside the workflow file given)`)
    .option('--json', 'print the status as JSON')
    .action(wrap(async (run: string | undefined, flags: StatusFlags) => runStatus(run, flags, io)));
}

/** The status of a run as `--json` prints it. */
export interface RunStatusJson {
  readonly format_version: 1;
  readonly run_id: string;
  /** `running`, `crashed`, or the status the run finished with. */
  readonly status: RunSummary['status'];
  /** A live process is writing the run now. */
  readonly active: boolean;
  readonly workflow: string | null;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly steps: RunProgress['steps'];
  readonly unknowns: RunProgress['unknowns'];
  readonly torn_tail: boolean;
  /** The command that resumes the run, when a resume has anything to do. */
  readonly resume_command: string | null;
}

async function runStatus(run: string | undefined, flags: StatusFlags, io: CliIO): Promise<number> {
  const { stateDir, summary } = await findRun(run, flags, io.cwd);
  const journal = await readJournal(runPaths(stateDir, summary.runId).journal);
  const replayed = replayRunState(journal.records);
  const progress = summariseProgress(replayed);
  const workflow = summary.meta?.workflow ?? replayed.run?.workflow ?? null;
  const canResume = !summary.active && workflow !== null && (RESUMABLE_STATUSES.has(summary.status) || progress.resumable > 0);
  const status: RunStatusJson = {
    format_version: 1,
    run_id: summary.runId,
    status: summary.status,
    active: summary.active,
    workflow,
    started_at: iso(summary.meta?.started_at ?? replayed.run?.started_at),
    finished_at: iso(summary.meta?.finished_at ?? undefined),
    steps: progress.steps,
    unknowns: progress.unknowns,
    torn_tail: journal.tornTail,
    resume_command: canResume ? formatResumeCommand({ workflow, runId: summary.runId, stateDir, inputs: replayed.run?.inputs ?? {}, cwd: io.cwd }) : null,
  };
  if (flags.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else io.stdout.write(`${formatStatus(status).join('\n')}\n`);
  return EXIT.ok;
}

async function findRun(run: string | undefined, flags: StatusFlags, cwd: string): Promise<{ stateDir: string; summary: RunSummary }> {
  const workflow = run !== undefined && (await isFile(resolve(cwd, run))) ? resolve(cwd, run) : undefined;
  const stateDir =
    workflow !== undefined
      ? resolveStateDir({ workflowPath: workflow, stateDir: flags.stateDir, cwd })
      : resolve(cwd, flags.stateDir ?? STATE_DIR_NAME);
  const runs = await listRuns(stateDir);
  const summary = workflow !== undefined ? runs.find((r) => r.meta?.workflow === workflow) : run === undefined ? runs[0] : runs.find((r) => r.runId === run);
  if (summary === undefined) {
    const what = workflow !== undefined ? `no run of ${run}` : run === undefined ? 'no runs' : `no run ${JSON.stringify(run)}`;
    throw new DeflowError('E_USAGE_NO_RUN', `${stateDir}: ${what} in this state folder (pass --state-dir to look elsewhere)`, { details: { stateDir, run: run ?? null } });
  }
  return { stateDir, summary };
}

/** The human form: a header, a table of steps, the unknown items and the resume command. */
export function formatStatus(status: RunStatusJson): string[] {
  const state = status.active ? `${status.status} (a process is writing it now)` : status.status;
  const lines = [`run ${status.run_id}: ${state}`];
  if (status.workflow !== null) lines.push(`workflow: ${status.workflow}`);
  if (status.started_at !== null) lines.push(`started: ${status.started_at}${status.finished_at === null ? '' : `, finished: ${status.finished_at}`}`);
  if (status.torn_tail) lines.push('journal: its last record was torn by a crash and is ignored');
  lines.push('');
  if (status.steps.length === 0) lines.push('no item has been journalled yet');
  else {
    const rows = status.steps.map((s) => [s.step, String(s.done), String(s.cached), String(s.running), String(s.unknown), String(s.failed), String(s.skipped + s.withdrawn), `$${s.cost.toFixed(4)}`]);
    lines.push(formatTable(['step', 'done', 'cached', 'running', 'unknown', 'failed', 'skipped', 'spent'], rows));
  }
  if (status.unknowns.length > 0) {
    lines.push('', `unknown items (${status.unknowns.length}): the service may or may not have created their jobs; deflow never submits them again unless --resubmit-unknown is given`);
    for (const unknown of status.unknowns) lines.push(`  ${unknown.node}: ${unknown.reason}`);
  }
  if (status.resume_command !== null) lines.push('', `resume: ${status.resume_command}`);
  return lines;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
