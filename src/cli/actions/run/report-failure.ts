/**
 * A report (`--report`, `--junit`, `--html`) the run could not write: the run's results and
 * journal are intact, so this is said with the command that writes the files again, and the
 * command ends non-zero (a CI job must not pass without the report it asked for).
 */
import { relative } from 'node:path';
import { EXIT, exitCodeFor, type CliIO } from '../../../common/index.js';
import { quoteWord } from '../../resume-command.js';

export interface ReportFailureContext {
  readonly runId: string;
  readonly stateDir: string;
  readonly flags: { readonly report?: string | undefined; readonly junit?: string | undefined; readonly html?: string | undefined };
}

/** Prints why the reports failed and how to write them again; resolves to the exit code to end with. */
export function reportFailure(io: CliIO, error: unknown, runExit: number, context: ReportFailureContext): number {
  io.stderr.write(`deflow: ${error instanceof Error ? error.message : String(error)}\n`);
  const words = ['deflow', 'report', context.runId, '--state-dir', relative(io.cwd, context.stateDir) || '.'];
  if (context.flags.report !== undefined) words.push('--report', context.flags.report);
  if (context.flags.junit !== undefined) words.push('--junit', context.flags.junit);
  if (context.flags.html !== undefined) words.push('--html', context.flags.html);
  if (words.length > 5) io.stderr.write(`the run's results and journal are intact; write the reports again with: ${words.map(quoteWord).join(' ')}\n`);
  // A run that failed keeps its own exit code; one that succeeded ends with the report's.
  return runExit === EXIT.ok ? exitCodeFor(error) : runExit;
}
