/**
 * `deflow validate WORKFLOW`: exit 0 and a plan when valid, exit 2 and one line per problem
 * when not. The action lives in actions/plan/validate-action.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { ValidateCommandOptions, ValidateFlags } from '../actions/plan/validate-action.js';
import { addWorkflowInputOptions } from '../workflow-input-options.js';

/** `deflow validate WORKFLOW`: exit 0 and a plan when valid, exit 2 and one line per problem when not. */
export function registerValidateCommand(program: Command, io: CliIO, wrap: ActionWrapper, options: ValidateCommandOptions = {}): void {
  addWorkflowInputOptions(
    program
      .command('validate')
      .description('check a workflow without running it (YAML, schema, references, models, files) and print its plan')
      .argument('<workflow>', 'workflow file (YAML)'),
  )
    .option('--offline', 'use cached models only: .deflow/models.json beside the workflow, else the built-in catalogue')
    .option('--json', 'print { format_version, ok, errors, warnings, plan, left_out } as JSON on stdout (schemas/validate.schema.json)')
    .option('--keep-going', 'items whose inputs fail the load-time checks are left out (each listed) instead of failing the workflow, as `run --keep-going` does (as defaults.keep_going: true)')
    .action(wrap(async (file: string, flags: ValidateFlags) => (await import('../actions/plan/validate-action.js')).runValidate(file, flags, io, options)));
}
