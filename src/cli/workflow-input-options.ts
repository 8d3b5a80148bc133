import type { Command } from 'commander';

/** Adds `--input key=value` (repeatable) and `--inputs FILE`, shared by validate, quote and run. */
export function addWorkflowInputOptions(command: Command): Command {
  return command
    .option('--input <key=value>', 'set a workflow input (repeatable)', (value: string, previous: string[]) => [...previous, value], [])
    .option('--inputs <file>', 'read workflow inputs from a YAML file (--input wins)');
}
