/**
 * `deflow init [DIR]`: a starter project: a commented workflow, `.env.example`, `.gitignore`
 * entries for the state and output folders, and CI snippets for GitHub Actions and GitLab CI.
 * Refuses to overwrite. The action lives in init-action.ts.
 */
import type { Command } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';

/** Adds `deflow init`. */
export function registerInitCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('init')
    .description('write a starter workflow, .env.example, .gitignore entries and CI snippets (never overwrites)')
    .argument('[dir]', 'folder to write into (created when missing)', '.')
    .action(wrap(async (dir: string) => (await import('../actions/init-action.js')).runInit(dir, io)));
}
