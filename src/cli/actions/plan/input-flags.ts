/**
 * `--input key=value` and `--inputs FILE` (workflow-input-options.ts), read into a workflow's
 * given inputs: the one way validate, quote and run read them.
 */
import type { CliIO } from '../../../common/index.js';
import { formatErrors, readGivenInputs, WorkflowInvalidError } from '../../../workflow/index.js';

/** What `--input` and `--inputs` hold. */
export interface InputFlags {
  readonly input: string[];
  readonly inputs?: string;
}

/** The inputs the flags give. */
export type GivenInputs = Awaited<ReturnType<typeof readGivenInputs>>;

/** The inputs, or the error naming every bad pair or file. */
export async function readInputFlags(flags: InputFlags, cwd: string): Promise<GivenInputs | WorkflowInvalidError> {
  try {
    return await readGivenInputs({ pairs: flags.input, ...(flags.inputs === undefined ? {} : { file: flags.inputs }), cwd });
  } catch (error) {
    if (!(error instanceof WorkflowInvalidError)) throw error;
    return error;
  }
}

/** The inputs; or undefined once their problems are printed on stderr (the command exits 2). */
export async function readInputFlagsOrSay(flags: InputFlags, io: CliIO): Promise<GivenInputs | undefined> {
  const read = await readInputFlags(flags, io.cwd);
  if (!(read instanceof WorkflowInvalidError)) return read;
  io.stderr.write(`${formatErrors(read.errors).join('\n')}\n`);
  return undefined;
}
