/**
 * `deflow status [RUN] [--state-dir DIR] [--json]`: a run's progress, read from its journal
 * (the latest run when RUN is omitted; RUN may also be a workflow file, for its latest run).
 * Counts per step, every `unknown` item with its reason, and the command that resumes it.
 * Works while the run is going: the journal is only read. The action lives in
 * actions/state/status-action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import { STATE_DIR_NAME } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { StatusFlags } from '../actions/state/status-action.js';

/** Adds `deflow status`. */
export function registerStatusCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('status')
    .description("a run's progress from its journal: items per step, unknown items, how to resume")
    .argument('[run]', 'run id, or a workflow file for its latest run (default: list the runs of every state folder here and below, newest first; with --state-dir, its latest run)')
    .option('--state-dir <dir>', `state folder (default: ${STATE_DIR_NAME} here, or beside the workflow file given)`)
    .option('--json', 'print the status as JSON')
    .option('--queue <url>', 'a distributed run (deflow run --queue): read it from this Redis (needs the run\'s API key)')
    .option('--api-key-file <path>', 'with --queue: read the API key from a file, or - for standard input')
    .action(wrap(async (run: string | undefined, flags: StatusFlags) => (await import('../actions/state/status-action.js')).runStatus(run, flags, io)));
}
