/**
 * `deflow report [RUN|WORKFLOW] --html FILE`: the HTML report of a run (a timeline of every
 * job, rate-limit waits and 429s per pool, cost per step quoted vs actual, failures), drawn
 * from the event log the run keeps in its state folder; `--report FILE` and `--junit FILE`
 * write the JSON and JUnit reports again from the JSON copy the run keeps (after a run could
 * not write them). The action lives in actions/state/report-action.ts.
 */
import type { Command } from 'commander';
import { STATE_DIR_NAME } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { ReportFlags } from '../actions/state/report-action.js';

/** Adds `deflow report`. */
export function registerReportCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('report')
    .description('write the HTML report of a run: a timeline of every job, waits and 429s per pool, costs, failures')
    .argument('[run]', 'run id, or a workflow file for its latest run (default: the newest run here or below)')
    .option('--html <file>', 'write the self-contained HTML page to this file')
    .option('--report <file>', 'write the run report (JSON) again to this file, from the copy the run keeps')
    .option('--junit <file>', 'write the JUnit XML report again to this file, from the copy the run keeps')
    .option('--state-dir <dir>', `state folder (default: ${STATE_DIR_NAME} here, or beside the workflow file given)`)
    .action(wrap(async (run: string | undefined, flags: ReportFlags) => (await import('../actions/state/report-action.js')).runReport(run, flags, io)));
}
