/**
 * `deflow models [--task TASK] [--json]`: the service's model list (every page), as a table of
 * slug, name, the deflow tasks each model serves and its key limits, or as JSON. The action
 * lives in models-action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { ModelsOptions } from '../actions/models-action.js';
import { addServiceOptions } from '../service-options.js';

/** Adds the `models` command. */
export function registerModelsCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  const command = program
    .command('models')
    .description('List the models of the service: slug, name, tasks and key limits.')
    .option('--task <task>', 'only models serving this task (e.g. audio.transcribe)')
    .option('--json', 'print the models as JSON');
  addServiceOptions(command).action(wrap(async (options: ModelsOptions) => (await import('../actions/models-action.js')).runModels(options, io)));
}
