/**
 * The exact command that resumes a run, as `deflow run` prints it on an interrupt and
 * `deflow status` shows it: the workflow (relative to where the user stands), the inputs the
 * run was started with, the state folder when it is not the default, and the run id.
 */
import { relative } from 'node:path';
import { resolveStateDir } from '../engine/index.js';

export interface ResumeCommandOptions {
  /** The workflow file (absolute). */
  readonly workflow: string;
  readonly runId: string;
  /** The state folder (absolute). */
  readonly stateDir: string;
  /** The run's inputs (written as `--input key=value`). */
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  /** More flags to repeat (`--resubmit-unknown`). */
  readonly extra?: readonly string[];
}

/** `deflow run podcast.yaml --input lang=en --run-id 20261122-225340-ab12`. */
export function formatResumeCommand(options: ResumeCommandOptions): string {
  const words = ['deflow', 'run', relative(options.cwd, options.workflow) || options.workflow];
  for (const [key, value] of Object.entries(options.inputs ?? {})) {
    if (value === undefined || value === null) continue;
    words.push('--input', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  if (resolveStateDir({ workflowPath: options.workflow, cwd: options.cwd }) !== options.stateDir) {
    words.push('--state-dir', relative(options.cwd, options.stateDir) || '.');
  }
  words.push('--run-id', options.runId, ...(options.extra ?? []));
  return words.map(quoteWord).join(' ');
}

/** Quotes a word for a POSIX shell when it needs it. */
export function quoteWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
