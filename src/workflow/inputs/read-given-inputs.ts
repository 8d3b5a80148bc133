import { resolve } from 'node:path';
import { DeflowError } from '../../common/index.js';
import { isRecord } from '../build/plain.js';
import { WORKFLOW_CODES, WorkflowError, WorkflowInvalidError } from '../workflow-error.js';
import { parseYaml } from '../yaml/parse-yaml.js';
import { readSourceFile } from '../yaml/read-source-file.js';
import type { GivenInputs } from './resolve-inputs.js';

/** Options for {@link readGivenInputs}. */
export interface ReadGivenInputsOptions {
  /** `key=value` strings from `--input`, in order (later ones win). */
  readonly pairs?: readonly string[];
  /** A YAML (or JSON) file of `key: value` pairs from `--inputs`; `--input` overrides it. */
  readonly file?: string;
  /** Folder `file` is relative to. @default process.cwd() */
  readonly cwd?: string;
}

/** Collects inputs from `--inputs FILE` and `--input k=v`; malformed ones throw a coded error. */
export async function readGivenInputs(options: ReadGivenInputsOptions): Promise<GivenInputs> {
  const values: Record<string, unknown> = {};
  const origins: Record<string, string> = {};
  if (options.file !== undefined) {
    const text = await readSourceFile(resolve(options.cwd ?? process.cwd(), options.file), options.file);
    const parsed = parseYaml(text, options.file);
    if (parsed.errors.length > 0) throw new WorkflowInvalidError(parsed.errors);
    if (!isRecord(parsed.value)) {
      const where = { file: options.file, line: 1, col: 1, path: 'workflow' };
      throw new WorkflowInvalidError([new WorkflowError(WORKFLOW_CODES.input, where, 'expected a mapping of input names to values')]);
    }
    for (const [key, value] of Object.entries(parsed.value)) {
      values[key] = value;
      origins[key] = `--inputs ${options.file}`;
    }
  }
  for (const pair of options.pairs ?? []) {
    const [key, value] = parseInputPair(pair);
    values[key] = value;
    origins[key] = '--input';
  }
  return { values, origins };
}

/** Splits `key=value` at the first `=`. */
export function parseInputPair(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new DeflowError('E_USAGE_INPUT', `--input expects key=value, got ${JSON.stringify(pair)}`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}
