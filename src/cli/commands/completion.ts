/**
 * `deflow completion bash|zsh|fish`: prints a shell completion script generated from the
 * command definitions (commands, their options and option values). The action lives in
 * completion-action.ts.
 */
import type { Command } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import { SHELLS } from '../actions/option-values.js';

/** Adds `deflow completion`; `program` is the root whose commands the script completes. */
export function registerCompletionCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(deflow completion bash)')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`)
    .action(wrap(async (shell: string) => (await import('../actions/completion-action.js')).runCompletion(shell, program, io)));
}
