import type { Command } from 'commander';
import type { ModelInfo } from '../service/index.js';
import { formatAnnotations } from '../workflow/index.js';
import { formatPlan } from '../workflow/index.js';
import { formatErrors, formatWarnings } from '../workflow/index.js';
import { readGivenInputs } from '../workflow/index.js';
import { validateWorkflow } from '../workflow/index.js';
import { WorkflowInvalidError } from '../workflow/index.js';
import type { CliIO } from '../common/index.js';
import { addWorkflowInputOptions } from './workflow-input-options.js';
import { EXIT } from '../common/index.js';
import type { ActionWrapper } from './main.js';

/** What the validate command can be given by the entry point. */
export interface ValidateCommandOptions {
  /** A live model-list fetcher when an API key is present (else undefined: cached models are used). */
  readonly createModelFetcher?: (io: CliIO) => (() => Promise<readonly ModelInfo[]>) | undefined;
}

interface ValidateFlags {
  readonly input: string[];
  readonly inputs?: string;
  readonly offline?: boolean;
  readonly json?: boolean;
}

/** `deflow validate WORKFLOW`: exit 0 and a plan when valid, exit 2 and one line per problem when not. */
export function registerValidateCommand(program: Command, io: CliIO, wrap: ActionWrapper, options: ValidateCommandOptions = {}): void {
  addWorkflowInputOptions(
    program
      .command('validate')
      .description('check a workflow without running it (YAML, schema, references, models, files) and print its plan')
      .argument('<workflow>', 'workflow file (YAML)'),
  )
    .option('--offline', 'use cached models only: .deflow/models.json beside the workflow, else the built-in catalogue')
    .option('--json', 'print { ok, errors, warnings, plan } as JSON on stdout')
    .action(wrap(async (file: string, flags: ValidateFlags) => runValidate(file, flags, io, options)));
}

async function runValidate(file: string, flags: ValidateFlags, io: CliIO, options: ValidateCommandOptions): Promise<number> {
  let inputs: Awaited<ReturnType<typeof readGivenInputs>>;
  try {
    inputs = await readGivenInputs({ pairs: flags.input, ...(flags.inputs === undefined ? {} : { file: flags.inputs }), cwd: io.cwd });
  } catch (error) {
    if (!(error instanceof WorkflowInvalidError)) throw error;
    return report(io, flags, { ok: false, errors: error.errors, warnings: [] });
  }
  const fetchModels = flags.offline ? undefined : options.createModelFetcher?.(io);
  const result = await validateWorkflow(file, {
    inputs,
    offline: flags.offline === true,
    cwd: io.cwd,
    ...(fetchModels ? { fetchModels } : {}),
  });
  return report(io, flags, result);
}

function report(io: CliIO, flags: ValidateFlags, result: Pick<Awaited<ReturnType<typeof validateWorkflow>>, 'ok' | 'errors' | 'warnings' | 'plan'>): number {
  if (io.env.GITHUB_ACTIONS === 'true') {
    const lines = [...formatAnnotations('error', result.errors), ...formatAnnotations('warning', result.warnings)];
    // The runner reads workflow commands from both streams; with --json, stdout stays pure JSON.
    if (lines.length > 0) (flags.json ? io.stderr : io.stdout).write(`${lines.join('\n')}\n`);
  }
  if (flags.json) {
    const json = { ok: result.ok, errors: result.errors.map((e) => e.toJSON()), warnings: result.warnings.map((w) => w.toJSON()), plan: result.plan ?? null };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    const problems = [...formatErrors(result.errors), ...formatWarnings(result.warnings)];
    if (problems.length > 0) io.stderr.write(`${problems.join('\n')}\n`);
    if (result.plan) io.stdout.write(`${formatPlan(result.plan, io.cwd).join('\n')}\n`);
  }
  return result.ok ? EXIT.ok : EXIT.usage;
}
