/** What `deflow validate` does (validate.ts defines the command): validate, then print the plan or the problems. */
import { formatAnnotations } from '../../../workflow/index.js';
import { formatPlan } from '../../../workflow/index.js';
import { formatErrors, formatWarnings } from '../../../workflow/index.js';
import { validateWorkflow } from '../../../workflow/index.js';
import { WorkflowInvalidError } from '../../../workflow/index.js';
import type { WorkflowError } from '../../../workflow/index.js';
import type { ModelInfo } from '../../../service/index.js';
import { excludedLines } from './run-notes.js';
import { readInputFlags } from './input-flags.js';
import type { CliIO } from '../../../common/index.js';
import { EXIT } from '../../../common/index.js';

export interface ValidateFlags {
  readonly input: string[];
  readonly inputs?: string;
  readonly offline?: boolean;
  readonly json?: boolean;
  /** `--keep-going`: items with bad inputs are left out (listed), as `run --keep-going` would. */
  readonly keepGoing?: boolean;
}

/** What the validate command can be given by the entry point. */
export interface ValidateCommandOptions {
  /** A live model-list fetcher when an API key is present (else undefined: cached models are used). */
  readonly createModelFetcher?: (io: CliIO) => (() => Promise<readonly ModelInfo[]>) | undefined;
}

export async function runValidate(file: string, flags: ValidateFlags, io: CliIO, options: ValidateCommandOptions): Promise<number> {
  const inputs = await readInputFlags(flags, io.cwd);
  if (inputs instanceof WorkflowInvalidError) return report(io, flags, { ok: false, errors: inputs.errors, warnings: [] });
  const fetchModels = flags.offline ? undefined : options.createModelFetcher?.(io);
  const result = await validateWorkflow(file, {
    inputs,
    offline: flags.offline === true,
    cwd: io.cwd,
    ...(fetchModels ? { fetchModels } : {}),
    keepGoing: flags.keepGoing === true ? true : 'workflow',
  });
  return report(io, flags, result);
}

function report(io: CliIO, flags: ValidateFlags, result: Pick<Awaited<ReturnType<typeof validateWorkflow>>, 'ok' | 'errors' | 'warnings' | 'plan'> & { readonly excluded?: readonly WorkflowError[] }): number {
  const leftOut = result.excluded ?? [];
  if (io.env.GITHUB_ACTIONS === 'true') {
    const lines = [...formatAnnotations('error', result.errors), ...formatAnnotations('warning', leftOut), ...formatAnnotations('warning', result.warnings)];
    // The runner reads workflow commands from both streams; with --json, stdout stays pure JSON.
    if (lines.length > 0) (flags.json ? io.stderr : io.stdout).write(`${lines.join('\n')}\n`);
  }
  if (flags.json) {
    const json = {
      format_version: 1,
      ok: result.ok,
      errors: result.errors.map((e) => e.toJSON()),
      warnings: result.warnings.map((w) => w.toJSON()),
      plan: result.plan ?? null,
      left_out: leftOut.map((e) => e.toJSON()),
    };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    const problems = [...formatErrors(result.errors), ...excludedLines(leftOut), ...formatWarnings(result.warnings)];
    if (problems.length > 0) io.stderr.write(`${problems.join('\n')}\n`);
    if (result.plan) io.stdout.write(`${formatPlan(result.plan, io.cwd).join('\n')}\n`);
  }
  return result.ok ? EXIT.ok : EXIT.usage;
}
