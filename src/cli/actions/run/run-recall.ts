/**
 * Resume needs no flags (issue 27, point 4): the options that shaped a run are journalled in
 * its `run.json`; a plain `deflow run WORKFLOW` that picks the run up again uses them, and an
 * option given again on the command line overrides the journalled one, which is printed.
 */
import { relative, resolve } from 'node:path';
import { listRuns, RESUMABLE_STATUSES, resolveStateDir } from '../../../engine/index.js';
import type { RunOptionsRecord, RunSummary } from '../../../engine/index.js';
import type { CliIO } from '../../../common/index.js';
import { quoteWord } from '../../resume-command.js';
import type { RunFlags } from './run-flags.js';

/** The flags a session runs with (the journalled ones filled in) and what to say about them. */
export interface Recalled {
  readonly flags: RunFlags;
  readonly lines: readonly string[];
}

/** The run a plain `deflow run FILE` would resume (the workflow's latest run, when it is resumable), if it journalled its options. */
async function resumableRun(file: string, flags: RunFlags, io: CliIO): Promise<(RunSummary & { options: RunOptionsRecord }) | undefined> {
  const stateDir = resolveStateDir({ workflowPath: file, stateDir: flags.stateDir, cwd: io.cwd });
  let runs: RunSummary[];
  try {
    runs = await listRuns(stateDir);
  } catch {
    return undefined;
  }
  const workflow = resolve(io.cwd, file);
  const latest = flags.runId === undefined ? runs.find((run) => run.meta?.workflow === workflow) : runs.find((run) => run.runId === flags.runId);
  if (latest === undefined || latest.active || !RESUMABLE_STATUSES.has(latest.status)) return undefined;
  const options = latest.meta?.options;
  return options === undefined ? undefined : { ...latest, options };
}

/** `flags` with what the run to resume journalled filled in where they say nothing. */
export async function recallRunOptions(file: string, flags: RunFlags, io: CliIO): Promise<Recalled> {
  // A dry run, a queue run and an in-process emulator (its jobs die with it) resume nothing.
  if (flags.dryRun === true || flags.queue !== undefined || flags.emulator === true) return { flags, lines: [] };
  const run = await resumableRun(file, flags, io);
  if (run === undefined) return { flags, lines: [] };
  const o = run.options;
  const used: string[] = [];
  const overridden: string[] = [];
  const merged: { -readonly [K in keyof RunFlags]: RunFlags[K] } = { ...flags };
  if (o.keep_going && flags.keepGoing !== true) {
    merged.keepGoing = true;
    used.push('--keep-going');
  }
  if (o.allow_unpriced && flags.allowUnpriced !== true) {
    merged.allowUnpriced = true;
    used.push('--allow-unpriced');
  }
  if (o.max_cost !== null) {
    if (flags.maxCost === undefined) {
      merged.maxCost = String(o.max_cost);
      used.push('--max-cost', String(o.max_cost));
    } else if (Number(flags.maxCost) !== o.max_cost) overridden.push(`--max-cost ${flags.maxCost} (the run had --max-cost ${o.max_cost})`);
  }
  const givenInputs = flags.input.length > 0 || flags.inputs !== undefined;
  if (!givenInputs) {
    if (o.input.length > 0) {
      merged.input = [...o.input];
      for (const pair of o.input) used.push('--input', pair);
    }
    if (o.inputs_file !== null) {
      merged.inputs = o.inputs_file;
      used.push('--inputs', relative(io.cwd, o.inputs_file) || o.inputs_file);
    }
  }
  if (o.output !== null) {
    if (flags.output === undefined) {
      merged.output = o.output;
      used.push('--output', relative(io.cwd, o.output) || '.');
    } else if (resolve(io.cwd, flags.output) !== o.output) overridden.push(`--output ${flags.output} (the run had --output ${relative(io.cwd, o.output) || '.'})`);
  }
  // A queue run is resumed on its queue (the URL as journalled: without a password, which the run never keeps).
  if (o.queue !== null) {
    merged.queue = o.queue;
    used.push('--queue', o.queue);
  }
  const lines: string[] = [];
  if (used.length > 0) lines.push(`resuming run ${run.runId} with the options it was run with: ${used.map(quoteWord).join(' ')}`);
  for (const line of overridden) lines.push(`resuming run ${run.runId}: overridden on the command line: ${line}`);
  return { flags: merged, lines };
}

/** What a session journals of its options (absolute paths; a queue URL without its password). */
export function recordRunOptions(flags: RunFlags, io: CliIO, stateDir: string, maxCost: number | undefined): RunOptionsRecord {
  return {
    keep_going: flags.keepGoing === true,
    max_cost: maxCost ?? null,
    allow_unpriced: flags.allowUnpriced === true,
    input: [...flags.input],
    inputs_file: flags.inputs === undefined ? null : resolve(io.cwd, flags.inputs),
    output: flags.output === undefined ? null : resolve(io.cwd, flags.output),
    state_dir: stateDir,
    queue: flags.queue === undefined ? null : withoutPassword(flags.queue),
  };
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/** The flags that repeat a run's journalled options, for the command `deflow status` prints. */
export function optionFlags(o: RunOptionsRecord, cwd: string): string[] {
  return [
    ...(o.keep_going ? ['--keep-going'] : []),
    ...(o.max_cost === null ? [] : ['--max-cost', String(o.max_cost)]),
    ...(o.allow_unpriced ? ['--allow-unpriced'] : []),
    ...(o.inputs_file === null ? [] : ['--inputs', relative(cwd, o.inputs_file) || o.inputs_file]),
    ...(o.output === null ? [] : ['--output', relative(cwd, o.output) || '.']),
  ];
}
