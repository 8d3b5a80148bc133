/**
 * `deflow gc [WORKFLOW] [--keep-days N] [--max-size SIZE] [--dry-run]`: removes finished runs,
 * result-cache entries and blobs of a state folder by age and size, never what a resumable run
 * or an `unsaved`, `timed-out`, `unknown` or `deferred` item needs, and prints what it freed.
 * It holds the state folder's lock: beside a live run it exits 2, or waits with `--wait-lock`.
 * The action lives in actions/state/gc-action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import { STATE_DIR_NAME } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { GcFlags } from '../actions/state/gc-action.js';

/** Adds `deflow gc`. */
export function registerGcCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('gc')
    .description('free a state folder: finished runs, cache entries and blobs by age and size, never what a resumable run or an unsaved, timed-out, unknown or deferred item needs')
    .argument('[workflow]', `workflow file: its state folder (default: ${STATE_DIR_NAME} here)`)
    .option('--keep-days <n>', 'keep finished runs, cache entries and blobs younger than this many days', '30')
    .option('--max-size <size>', 'then remove the oldest removable things until the folder is at most this size (bytes, or 500M, 2G, 10GB: powers of 1024)')
    .option('--dry-run', 'print what would be freed; remove nothing')
    .option('--state-dir <dir>', `state folder (default: ${STATE_DIR_NAME} here, or beside the workflow file given)`)
    .option('--json', 'print the result as JSON')
    .option(
      '--wait-lock [duration]',
      'when a deflow run holds the state folder, wait for it to end (--wait-lock=DURATION: at most 90s, 10m, 2h; alone: as long as it takes) instead of exiting 2',
    )
    .action(wrap(async (workflow: string | undefined, flags: GcFlags) => (await import('../actions/state/gc-action.js')).runGc(workflow, flags, io)));
}
